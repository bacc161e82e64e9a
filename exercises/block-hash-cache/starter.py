import hashlib  # noqa: F401  (you will need it)


def block_hashes(tokens, block_size, extra_key):
    """The chained SHA-256 hash of every full block of tokens.

    tokens: a list of ints in [0, 2**32).
    block_size: tokens per block (≥ 1); a partial last block gets no hash.
    extra_key: an int in [-2**63, 2**63), hashed into every block (an adapter id, a salt).
    Returns a list of hex strings (hexdigest()), one per full block, in block order.
    """
    raise NotImplementedError("hash parent ‖ extra_key ‖ the block's tokens, block after block")


def prefix_hits(reqs, block_size, extra_keys):
    """How many prompt tokens each request finds in a shared cache of block hashes.

    reqs: a list of requests, each a list of at least one int.
    extra_keys: one extra key per request.
    Returns a list of ints, one per request.
    """
    raise NotImplementedError("count the leading cached blocks, cap them, then add the request's hashes")
