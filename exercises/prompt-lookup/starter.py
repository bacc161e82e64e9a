def ngram_propose(tokens, min_n, max_n, k):
    """Draft up to k tokens by finding the context's last n-gram earlier in the context.

    tokens: the context, a list of ints (token ids).
    min_n, max_n: the n-gram lengths to try, longest first (1 ≤ min_n ≤ max_n).
    k: the most tokens to propose (k ≥ 1).
    Returns a list of 0 to k ints: the tokens that followed the earliest earlier occurrence.
    """
    raise NotImplementedError("try n = max_n, …, min_n; find the earliest earlier occurrence of the last n tokens")


def lookup_decode(prompt, target, min_n, max_n, k):
    """Simulate greedy speculative decoding with ngram_propose as the drafter.

    prompt: the prompt's tokens, a list of ints.
    target: the tokens the target model generates greedily after the prompt, a list of ints.
    Returns a list with the number of tokens each target pass emits.
    """
    raise NotImplementedError("draft, count the accepted tokens, emit them and the target's next token")
