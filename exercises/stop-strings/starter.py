def apply_stops(deltas, stops):
    """Stream text through stop strings, releasing only what can no longer become part of a stop.

    deltas: list of str, the text as it arrives (any may be "").
    stops: list of distinct non-empty str (may be empty).
    Returns (released, stop_index): a list with one str per delta read, and the index in stops of
    the stop that ended the stream, or -1 if the deltas ran out first. Leave both lists unchanged.
    """
    raise NotImplementedError("keep the text not yet released, search it for stops, hold back a prefix")
