def static_batching(arrivals, out_lens, max_batch):
    """Serve the requests in static batches.

    Request i arrives at step arrivals[i] and wants out_lens[i] tokens; at most max_batch requests
    per batch. Returns the tuple (first_token_steps, finish_steps), two lists of ints indexed by
    request.
    """
    raise NotImplementedError("form a batch when none is running, and finish all of it together")


def continuous_batching(arrivals, out_lens, max_batch):
    """Serve the requests with continuous (iteration-level) batching, in max_batch slots.

    Returns the tuple (first_token_steps, finish_steps), two lists of ints indexed by request.
    """
    raise NotImplementedError("at every step, fill the free slots from the queue, first come first served")
