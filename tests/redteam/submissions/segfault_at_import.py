# Crash: dereferences a NULL pointer through ctypes at import.
import ctypes

ctypes.string_at(0)
