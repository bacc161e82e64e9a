def radix_reuse(reqs, capacity):
    """Serve the token lists reqs in order against one prefix cache of at most capacity tokens,
    evicting the least recently used leaf token one at a time.

    Returns a list of ints: for each request, how many of its leading tokens reuse cached KV
    (never its last token).
    """
    raise NotImplementedError
