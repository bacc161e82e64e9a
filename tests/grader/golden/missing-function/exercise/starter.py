def scale(v, k):
    """Every entry of v times k."""
    raise NotImplementedError


def shift(v, c):
    """Every entry of v plus c."""
    raise NotImplementedError
