def checkpoint_cost(saved, boundary, flops, segments):
    n = len(saved)
    size = n // segments  # checkpoint_sequential's layout: the last segment takes the rest
    last = (segments - 1) * size  # the first layer of the last segment, which is not checkpointed
    # End of the forward: the inputs of the checkpointed segments, and every activation of the last one.
    peak = (segments - 1) * boundary + sum(saved[last:])
    for k in range(segments - 1):
        # Re-running segment k: its own activations, with the inputs of segments 0 … k still held
        # (the inputs of later segments were freed by their backward).
        peak = max(peak, (k + 1) * boundary + sum(saved[k * size : (k + 1) * size]))
    # Only the checkpointed segments run their forward twice.
    return peak, sum(flops[:last])


def best_segments(saved, boundary, flops, budget):
    fits = []
    for segments in range(1, len(saved) + 1):
        peak, recompute = checkpoint_cost(saved, boundary, flops, segments)
        if peak <= budget:
            fits.append((recompute, segments))  # least recompute first, then fewer segments
    return min(fits)[1] if fits else -1
