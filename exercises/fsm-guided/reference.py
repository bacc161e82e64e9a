import numpy as np


def walk(dfa, state, text):
    """The state reached from state through every character of text, or None where the walk dies."""
    for ch in text:
        state = dfa.get(state, {}).get(ch)  # None once the walk dies: None has no transitions either
    return state


def live_states(dfa, accepting):
    """The states from which some accepting state can be reached."""
    live = set(accepting)
    # Each pass adds the states one step before a live one; a shortest path to an accepting state
    # leaves at most len(dfa) states, so len(dfa) passes reach every live state.
    for _ in range(len(dfa)):
        live |= {s for s, edges in dfa.items() if any(t in live for t in edges.values())}
    return live


def allowed_tokens(dfa, accepting, state, vocab, eos_id):
    live = live_states(dfa, accepting)
    mask = np.zeros(len(vocab), dtype=bool)
    for t, text in enumerate(vocab):
        if t == eos_id:
            mask[t] = state in accepting
        elif text != "":
            mask[t] = walk(dfa, state, text) in live  # None (a dead walk) is never live
    return mask


def guided_greedy(dfa, accepting, start, vocab, eos_id, logits):
    state = start
    chosen = []
    for row in logits:
        mask = allowed_tokens(dfa, accepting, state, vocab, eos_id)
        t = int(np.argmax(np.where(mask, row, -np.inf)))  # argmax takes the lowest id among ties
        chosen.append(t)
        if t == eos_id:
            break
        state = walk(dfa, state, vocab[t])
    return chosen
