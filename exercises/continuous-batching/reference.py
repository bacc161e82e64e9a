def fcfs(arrivals):
    # Waiting requests are served first come, first served: by (arrival, index).
    return sorted(range(len(arrivals)), key=lambda i: (arrivals[i], i))


def static_batching(arrivals, out_lens, max_batch):
    first = [None] * len(arrivals)
    finish = [None] * len(arrivals)
    queue = fcfs(arrivals)
    t = 0
    # Every batch serves at least one request, so there are at most len(arrivals) of them.
    for _ in range(len(arrivals)):
        if not queue:
            break
        # Wait for the head to arrive; the batch then takes the arrived heads, up to max_batch.
        t = max(t, arrivals[queue[0]])
        batch = [i for i in queue[:max_batch] if arrivals[i] <= t]
        del queue[: len(batch)]
        end = t + max(out_lens[i] for i in batch) - 1
        for i in batch:
            first[i] = t
            finish[i] = end  # the batch's responses come back together
        t = end + 1
    return first, finish


def continuous_batching(arrivals, out_lens, max_batch):
    first = [None] * len(arrivals)
    finish = [None] * len(arrivals)
    queue = fcfs(arrivals)
    running = []  # the last-token steps of the requests holding a slot
    # Even one request at a time, the last one starts before max(arrivals) + sum(out_lens).
    for t in range(max(arrivals) + sum(out_lens)):
        # A request whose last token came before step t has given its slot back.
        running = [end for end in running if end >= t]
        while queue and len(running) < max_batch and arrivals[queue[0]] <= t:
            i = queue.pop(0)
            first[i] = t
            finish[i] = t + out_lens[i] - 1  # its prefill yields the first token in step t
            running.append(finish[i])
    return first, finish
