"""What exercise authors run, never the web app or the workers: ``mlkata check``, ``mlkata new`` and their parts.

``cli`` holds the commands; ``verify`` proves an exercise (reference passes, starter and known
mistakes fail), ``mutation`` scores its checks against derived mutants, ``verified`` and
``user_cache`` remember what was proven, ``scaffold`` writes a new exercise, ``katex`` checks its
math and ``terminal`` prints a result. Each tool is imported on its own, when its command runs.
"""
