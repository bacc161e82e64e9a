import numpy as np  # noqa: F401  (you will need it)


def allowed_tokens(dfa, accepting, state, vocab, eos_id):
    """The tokens that keep the text inside the automaton's language, in state `state`.

    dfa: {state: {char: next_state}}; a missing state or char has no transition.
    accepting: a list of accepting states.
    vocab: a list of V strings, token id = index; vocab[eos_id] is the end-of-sequence token.
    Returns a bool array of shape (V,).
    """
    raise NotImplementedError("EOS in accepting states; other tokens: walk every character, end in a live state")


def guided_greedy(dfa, accepting, start, vocab, eos_id, logits):
    """Greedy decoding under the mask, from state `start`, one row of logits (steps, V) per step.

    Returns the list of chosen token ids; stops after EOS or when the rows run out.
    """
    raise NotImplementedError("mask, take the allowed argmax (lowest id on ties), advance the state")
