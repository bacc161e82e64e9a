def simulate_preempt(arrivals, prompt_lens, out_lens, num_blocks, block_size):
    n = len(arrivals)
    p, o = prompt_lens, out_lens

    def blocks(tokens):
        return -(-tokens // block_size)  # ⌈tokens / block_size⌉

    g = [0] * n  # tokens generated so far, kept across preemption
    held = {}  # blocks held by each running request, set when it is admitted
    finish = [None] * n
    preemptions = [0] * n
    waiting, running = [], []  # waiting in FCFS order, running in admission order
    free = num_blocks
    # Every step until the last finish yields a token or waits for an arrival: this many steps suffice.
    for t in range(max(arrivals) + sum(out_lens)):
        waiting += [i for i in range(n) if arrivals[i] == t]  # later than all who wait; ties by index
        # (1) Decodes, from the front of the running list.
        for r in list(running):
            if r not in running:
                break  # preempted in this step, and so is everyone after it
            if blocks(p[r] + g[r]) > held[r]:
                if free == 0:
                    victim = running.pop()  # the newest admitted; maybe r itself
                    free += held[victim]
                    preemptions[victim] += 1
                    waiting.insert(0, victim)  # it has the lowest (arrival, index) of all who wait
                    if victim == r:
                        break
                held[r] += 1
                free -= 1
            g[r] += 1
        # (2) Admissions, FCFS, stopping at the first head that does not fit.
        for h in list(waiting):
            if blocks(p[h] + g[h]) > free:
                break
            waiting.remove(h)
            held[h] = blocks(p[h] + g[h])
            free -= held[h]
            g[h] += 1  # the prefill (or recompute) yields a token
            running.append(h)
        # (3) Requests that reached their last token finish; their blocks are free from t + 1.
        for r in [r for r in running if g[r] >= o[r]]:
            finish[r] = t
            free += held[r]
            running.remove(r)
    return finish, preemptions
