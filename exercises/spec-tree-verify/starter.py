import numpy as np  # noqa: F401  (you will need it)


def tree_attention(parents, prefix_len):
    """The attention mask and the positions of a draft tree verified in one forward pass.

    parents: list of n ints, parents first: parents[0] == -1 (node 0 is the root) and
        0 <= parents[i] < i for every other node.
    prefix_len: how many tokens are already in the KV cache before the root.
    Returns (mask, positions): mask a bool array (n, n), True at [i, j] iff j is i or an
    ancestor of i; positions an int array (n,), prefix_len + the depth of each node.
    """
    raise NotImplementedError("mark each node's ancestors, and count its depth")


def accept_path(parents, tokens, target_next):
    """Walk the draft tree from the root, accepting the drafts the target model agrees with.

    tokens[i]: node i's token; target_next[i]: the target's greedy token after the path to i.
    Returns (accepted_nodes, emitted), two lists of ints: the accepted nodes from the root
    (node 0 first), and the tokens of the accepted drafts followed by the target's own token.
    """
    raise NotImplementedError("from node c, move to the lowest-index child whose token is target_next[c]")
