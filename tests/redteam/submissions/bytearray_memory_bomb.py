# Resource: a bytearray memory bomb at import, touching every page it gets.
hoard = []
while True:
    chunk = bytearray(8 << 20)
    chunk[::4096] = b"x" * len(chunk[::4096])
    hoard.append(chunk)
