"""The wire format's definitions: the dtypes that may cross, the limits, and the one error."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

#: dtypes allowed to cross, by their canonical little-endian ``str``.
ALLOWED_DTYPES: frozenset[str] = frozenset(
    ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"]
)
DTYPES: dict[str, np.dtype[Any]] = {s: np.dtype(s) for s in ALLOWED_DTYPES}
#: Allowed dtypes by dtype object: ``dtype.str`` builds a new string on every call.
DTYPE_STRS: dict[np.dtype[Any], str] = {dtype: s for s, dtype in DTYPES.items()}
SCALAR_TYPES: frozenset[type] = frozenset(dtype.type for dtype in DTYPES.values())
#: Every buffer starts at a multiple of this within the message body, so that arrays received in
#: one block of memory are aligned without a copy.
ALIGN = max(dtype.alignment for dtype in DTYPES.values())
PADDING = [b"\0" * n for n in range(ALIGN)]
#: Values that cross as themselves. ``int`` is not among them: it has a size limit.
PLAIN = frozenset([type(None), bool, str, float])
MAX_DEPTH = 64
#: Values of one message, array-table entries included.
MAX_NODES = 1_000_000
#: The JSON header of a reply decoded on the trusted side. Decoding JSON builds objects some 20-30
#: times the size of their text, so this bounds that cost whatever the reply limit; numeric data
#: travels in the buffers, outside the header, and is viewed where it arrived.
MAX_REPLY_HEADER_BYTES = 1 << 20
#: Integers cross as JSON numbers; Python refuses to print more than 4,300 digits by default.
MAX_INT_DIGITS = 4000
MAX_INT_BITS = int(MAX_INT_DIGITS / 0.30103)
U32 = struct.Struct(">I")
U32_MAX = 0xFFFFFFFF


class WireError(ValueError):
    """A value cannot be encoded, or a message is not a well-formed frame."""
