def held_back(pending, stops):
    """The length of the longest suffix of pending that is a proper prefix of some stop."""
    return max((k for stop in stops for k in range(1, len(stop)) if pending.endswith(stop[:k])), default=0)


def apply_stops(deltas, stops):
    released = []
    pending = ""
    for delta in deltas:
        pending += delta
        # Every stop that occurs, as (start of its first occurrence, its index): min() takes the
        # earliest start, and the lowest index among equal starts.
        found = [(pending.find(stop), j) for j, stop in enumerate(stops) if stop in pending]
        if found:
            start, j = min(found)
            released.append(pending[:start])
            return released, j
        cut = len(pending) - held_back(pending, stops)
        released.append(pending[:cut])
        pending = pending[cut:]
    if released:
        released[-1] += pending
    return released, -1
