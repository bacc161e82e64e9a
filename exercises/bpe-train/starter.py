import re  # noqa: F401  (you will need it)

# The pre-tokenisation pattern: an ASCII version of GPT-2's.
PAT = r"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+"""


def train_bpe(text, vocab_size, special_tokens):
    """Train a byte-level BPE tokenizer on `text`.

    text: a str (any Unicode). vocab_size: the size the vocabulary should reach, at least
    256 + len(special_tokens). special_tokens: a list of distinct non-empty str, never merged into.
    Returns (vocab, merges): vocab a dict {id: bytes}, merges a list of (bytes, bytes) tuples in the
    order they were made. special_tokens is left unchanged.
    """
    raise NotImplementedError("start from the 256 bytes and the special tokens, then merge the most frequent pair")
