import numpy as np


def tree_attention(parents, prefix_len):
    n = len(parents)
    mask = np.zeros((n, n), dtype=bool)
    depth = np.zeros(n, dtype=np.int64)
    for i in range(n):
        mask[i, i] = True
        p = parents[i]
        if p >= 0:
            # Parents come first, so row p is already final: p's ancestors and p itself.
            mask[i] |= mask[p]
            depth[i] = depth[p] + 1
    return mask, prefix_len + depth


def accept_path(parents, tokens, target_next):
    children = [[] for _ in parents]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)  # in increasing index order
    node, accepted = 0, [0]
    for _ in parents:  # a path never holds more nodes than the tree
        # The target's token after `node` decides which child (if any) is accepted.
        matches = [d for d in children[node] if tokens[d] == target_next[node]]
        if not matches:
            break
        node = matches[0]
        accepted.append(node)
    # The accepted drafts, then the target's own token after the last accepted node.
    emitted = [tokens[a] for a in accepted[1:]] + [target_next[node]]
    return accepted, emitted
