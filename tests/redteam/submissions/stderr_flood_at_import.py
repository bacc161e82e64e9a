# Resource: floods stderr without end, at import, with raw writes to fd 2.
import os

LINE = b"eggs " * 200 + b"\n"
while True:
    os.write(2, LINE)
