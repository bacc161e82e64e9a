def ngram_propose(tokens, min_n, max_n, k):
    L = len(tokens)
    for n in range(max_n, min_n - 1, -1):  # longest n-gram first
        suffix = tokens[L - n :]
        # Starts 0 … L − n − 1: the suffix itself (s = L − n) never counts, and n ≥ L has no start.
        for s in range(L - n):
            if tokens[s : s + n] == suffix:
                return tokens[s + n : s + n + k]  # the slice stops at the end of the context
    return []


def lookup_decode(prompt, target, min_n, max_n, k):
    context = list(prompt)  # a copy: the prompt itself is left unchanged
    produced = 0
    passes = []
    for _ in target:  # every pass emits at least one token: at most len(target) passes
        if produced == len(target):
            break
        draft = ngram_propose(context, min_n, max_n, k)
        a = 0
        for d, t in zip(draft, target[produced:], strict=False):  # to the end of the draft or of target
            if d != t:
                break
            a += 1
        e = min(a + 1, len(target) - produced)  # the accepted drafts and the target's own token
        context += target[produced : produced + e]
        produced += e
        passes.append(e)
    return passes
