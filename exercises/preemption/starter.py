def simulate_preempt(arrivals, prompt_lens, out_lens, num_blocks, block_size):
    """Simulate a server that preempts the newest request when its KV blocks run out.

    arrivals, prompt_lens, out_lens: lists of n ints (request i arrives at step arrivals[i],
        has prompt_lens[i] prompt tokens and wants out_lens[i] output tokens).
    num_blocks: KV blocks in the pool; block_size: tokens per block.
    Returns (finish_steps, preemptions): two lists of n ints, indexed by request.
    The arguments are left unchanged.
    """
    raise NotImplementedError(
        "step t = 0, 1, 2, …: decodes (preempting the newest when no block is free), "
        "then FCFS admissions, then finishes"
    )
