import re
from itertools import pairwise

PAT = r"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+"""


def train_bpe(text, vocab_size, special_tokens):
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")

    pieces = [text]
    if special_tokens:
        longest_first = sorted(special_tokens, key=len, reverse=True)
        pieces = re.split("|".join(map(re.escape, longest_first)), text)
    counts = {}
    for piece in pieces:
        for word in re.findall(PAT, piece):
            tokens = tuple(bytes([b]) for b in word.encode("utf-8"))
            counts[tokens] = counts.get(tokens, 0) + 1

    merges = []
    while len(vocab) < vocab_size:
        pairs = {}
        for tokens, n in counts.items():
            for pair in pairwise(tokens):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        counts = {merge(tokens, best): n for tokens, n in counts.items()}
    return vocab, merges


def merge(tokens, pair):
    out = []
    i = 0
    while i < len(tokens):
        if tokens[i : i + 2] == pair:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return tuple(out)
