def scale(v, k):
    """Every entry of v times k."""
    raise NotImplementedError
