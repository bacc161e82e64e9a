import numpy as np


def token_positions(num_computed, num_new):
    """For each new token of the flattened batch: its request and its position in that request."""
    computed = np.asarray(num_computed, dtype=np.int64)
    new = np.asarray(num_new, dtype=np.int64)
    query_start_loc = np.concatenate([[0], np.cumsum(new)])
    request = np.repeat(np.arange(len(new)), new)
    # The i-th new token of request r sits right after its num_computed[r] cached tokens.
    positions = computed[request] + np.arange(query_start_loc[-1]) - query_start_loc[request]
    return request, positions, query_start_loc


def batch_metadata(num_computed, num_new, block_tables, block_size):
    request, positions, query_start_loc = token_positions(num_computed, num_new)
    seq_lens = np.asarray(num_computed, dtype=np.int64) + np.asarray(num_new, dtype=np.int64)
    # Each token's block: the entry of its request's table for its logical block p // block_size.
    blocks = np.array([block_tables[r][p // block_size] for r, p in np.column_stack([request, positions])])
    slot_mapping = blocks * block_size + positions % block_size
    logits_indices = query_start_loc[1:] - 1
    return positions, query_start_loc, seq_lens, slot_mapping, logits_indices


def ragged_causal_mask(num_computed, num_new):
    request, positions, _ = token_positions(num_computed, num_new)
    seq_lens = np.asarray(num_computed, dtype=np.int64) + np.asarray(num_new, dtype=np.int64)
    key_request = np.repeat(np.arange(len(seq_lens)), seq_lens)
    key_start = np.concatenate([[0], np.cumsum(seq_lens)])
    key_positions = np.arange(key_start[-1]) - key_start[key_request]
    # Block-diagonal (same request) and causal in absolute positions (bottom-right aligned).
    return (request[:, None] == key_request[None, :]) & (key_positions[None, :] <= positions[:, None])
