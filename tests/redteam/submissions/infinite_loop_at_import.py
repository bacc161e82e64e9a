# Resource: an infinite loop at import.
while True:
    pass
