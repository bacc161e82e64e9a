import numpy as np  # noqa: F401  (you will need it)


def batch_metadata(num_computed, num_new, block_tables, block_size):
    """The metadata a paged attention kernel needs for one ragged batch.

    num_computed: list of R ints, the tokens of each request already in the KV cache.
    num_new: list of R ints >= 1, the new tokens of each request in this step.
    block_tables: list of R lists of block ids. block_size: tokens per block.
    Returns (positions, query_start_loc, seq_lens, slot_mapping, logits_indices): five 1-D int
    arrays of shapes (T,), (R + 1,), (R,), (T,), (R,), with T = sum(num_new).
    """
    raise NotImplementedError("flatten the new tokens request after request")


def ragged_causal_mask(num_computed, num_new):
    """The attention mask of the flattened batch: a bool array of shape (T, S), S = sum(seq_lens)."""
    raise NotImplementedError
