import math


def rank_coords(rank, sizes, order):
    coords = {}
    stride = 1  # how far apart two ranks are that differ by one along this name
    for name in order:  # fastest-varying first
        coords[name] = rank // stride % sizes[name]
        stride *= sizes[name]
    return coords


def rank_groups(sizes, order, dims):
    world = math.prod(sizes[name] for name in order)
    groups = {}  # the coordinates outside dims -> the ranks that share them
    for rank in range(world):  # ascending: so is each group, and groups appear by their smallest rank
        coords = rank_coords(rank, sizes, order)
        key = tuple(coords[name] for name in order if name not in dims)
        groups.setdefault(key, []).append(rank)
    return list(groups.values())
