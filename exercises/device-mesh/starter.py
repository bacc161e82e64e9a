def rank_coords(rank, sizes, order):
    """The coordinates of a rank on the mesh.

    sizes: {name: size}, e.g. {"tp": 2, "dp": 2, "pp": 2}; order: every name of sizes once,
    fastest-varying first (order[0] has stride 1).
    Returns {name: coordinate} for every name, each an int with 0 <= coordinate < sizes[name].
    """
    raise NotImplementedError


def rank_groups(sizes, order, dims):
    """The process groups along the names in dims.

    Two ranks share a group iff their coordinates agree on every name not in dims.
    Returns a list of groups, each a list of ranks in ascending order, the groups ordered by
    their smallest rank.
    """
    raise NotImplementedError
