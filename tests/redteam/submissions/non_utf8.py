# Malformed: a byte that is not UTF-8 (0xff) on line 3.

# cafÿ
def kv_cache_bytes(a, b, c, d, e):
    return 0
