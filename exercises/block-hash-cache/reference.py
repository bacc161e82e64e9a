import hashlib


def block_hashes(tokens, block_size, extra_key):
    key = int(extra_key).to_bytes(8, "little", signed=True)
    parent = bytes(32)  # block 0 has no parent: 32 zero bytes stand in for it
    hashes = []
    for i in range(len(tokens) // block_size):  # full blocks only
        block = tokens[i * block_size : (i + 1) * block_size]
        data = parent + key + b"".join(int(t).to_bytes(4, "little") for t in block)
        digest = hashlib.sha256(data)
        parent = digest.digest()  # chained: the next block hashes this one's 32-byte digest
        hashes.append(digest.hexdigest())
    return hashes


def prefix_hits(reqs, block_size, extra_keys):
    cache = set()
    hits = []
    for tokens, extra_key in zip(reqs, extra_keys, strict=True):
        hashes = block_hashes(tokens, block_size, extra_key)
        c = 0
        for h in hashes:  # leading blocks only: the first miss ends the count
            if h not in cache:
                break
            c += 1
        hits.append(block_size * min(c, (len(tokens) - 1) // block_size))  # the last token is always computed
        cache.update(hashes)
    return hits
