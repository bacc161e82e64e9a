"""The trusted side of mlkata: exercises, checks, the sandbox launcher and verdicts.

Nothing in this package ever runs student code in its own process. Student code runs only in
the runner (``runner/``), started inside the sandbox by :mod:`grader.sandbox`.
"""
