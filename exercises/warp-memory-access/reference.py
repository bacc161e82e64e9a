from collections import Counter


def units_of_accesses(addrs, access_bytes, unit):
    """For each active thread, the range of units (sectors or words) that its bytes fall in."""
    # A thread at a reads the bytes a … a + access_bytes − 1; a negative address is an inactive thread.
    return [range(a // unit, (a + access_bytes - 1) // unit + 1) for a in addrs.tolist() if a >= 0]


def global_sectors(addrs, access_bytes, sector_bytes):
    # The coalescer fetches each distinct sector once, however many threads read from it.
    sectors = set()
    for units in units_of_accesses(addrs, access_bytes, sector_bytes):
        sectors.update(units)
    return len(sectors)


def bank_conflict_degree(addrs, access_bytes, n_banks, word_bytes):
    # Threads reading the same word share one broadcast, so only distinct words count.
    words = set()
    for units in units_of_accesses(addrs, access_bytes, word_bytes):
        words.update(units)
    # Word w lives in bank w mod n_banks; a bank serves one word per pass.
    per_bank = Counter(w % n_banks for w in words)
    return max(per_bank.values(), default=0)
