def chunked_prefill(arrivals, prompt_lens, out_lens, max_batch, token_budget, chunk):
    """Simulate a scheduler with chunked prefill and a token budget per step.

    arrivals, prompt_lens, out_lens: lists of ints, one per request.
    max_batch: at most this many running requests; token_budget: at most this many tokens
    per step; chunk: at most this many prompt tokens of one request per step.
    Returns (steps, first_token_steps, finish_steps): steps[t] is the list of pairs
    (request, n_tokens) scheduled in step t, in schedule order; the other two are lists of
    ints indexed by request.
    """
    raise NotImplementedError("each step: decodes, then unfinished prefills, then admissions")
