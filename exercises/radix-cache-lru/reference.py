from collections import Counter


def radix_reuse(reqs, capacity):
    last_use = {}  # cached token, as the prefix it ends (a tuple) -> the last request that used it
    children = Counter()  # cached prefix -> how many cached one-token extensions it has
    hits = []
    for r, req in enumerate(reqs):
        x = tuple(req)
        m = 0  # the longest cached prefix: the cache is prefix-closed, so stop at the first miss
        for j in range(1, len(x) + 1):
            if x[:j] not in last_use:
                break
            m = j
            last_use[x[:j]] = r  # a hit is a use: stamp the match before evicting
        hits.append(min(m, len(x) - 1))  # the last token is always computed, for the logits
        for _ in range(len(last_use) + len(x) - m - capacity):  # one leaf at a time, as many as needed
            leaf = min((p for p in last_use if children[p] == 0), key=last_use.get)
            del last_use[leaf]
            children[leaf[:-1]] -= 1
        for j in range(m + 1, len(x) + 1):
            last_use[x[:j]] = r
            children[x[: j - 1]] += 1
    return hits
