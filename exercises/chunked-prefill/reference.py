def chunked_prefill(arrivals, prompt_lens, out_lens, max_batch, token_budget, chunk):
    n = len(arrivals)
    waiting = sorted(range(n), key=lambda i: (arrivals[i], i))  # first come, first served
    computed = [0] * n  # prompt tokens already prefilled
    produced = [0] * n  # output tokens yielded
    first, finish = [None] * n, [None] * n
    running, steps = [], []
    # Every step with work to do makes progress, so the last step comes well before this bound.
    for t in range(max(arrivals) + sum(prompt_lens) + sum(out_lens)):
        b = token_budget
        batch = []
        # (1) Decodes first: one token for every running request whose prompt is complete.
        for i in running:
            if computed[i] == prompt_lens[i]:
                batch.append((i, 1))
                b -= 1
        # (2) Then the unfinished prefills, in admission order, with what is left of the budget.
        for i in running:
            if computed[i] != prompt_lens[i]:
                m = min(prompt_lens[i] - computed[i], chunk, b)
                if m > 0:
                    batch.append((i, m))
                    b -= m
        # (3) Then admissions, FCFS, while a slot and some budget are left.
        while waiting and arrivals[waiting[0]] <= t and len(running) < max_batch and b > 0:
            i = waiting.pop(0)
            running.append(i)
            m = min(prompt_lens[i], chunk, b)
            batch.append((i, m))
            b -= m
        # The step runs.
        for i, m in batch:
            if computed[i] < prompt_lens[i]:
                computed[i] += m
                if computed[i] < prompt_lens[i]:
                    continue  # a chunk that leaves the prompt incomplete yields no token
                first[i] = t  # the chunk that completes the prompt yields the first token
            produced[i] += 1
            if produced[i] == out_lens[i]:
                finish[i] = t
        # Finished requests keep their slot until the end of this step.
        running = [i for i in running if produced[i] < out_lens[i]]
        steps.append(batch)
        if not waiting and not running:
            break
    return steps, first, finish
