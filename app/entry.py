"""The ``mlkata`` executable's entry point: process settings that must come before any import.

Checks compute on small arrays, where BLAS worker threads bring nothing and spin on the cores the
sandboxed runs need (on two cores this halved grading throughput). They must be limited before
numpy is first imported, so this module imports nothing else until they are set.
"""

from __future__ import annotations

import os


def main() -> None:
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    from app.cli import main as run_cli

    run_cli()
