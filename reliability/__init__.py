"""Reliability evidence (issue 5): kill, concurrency and soak scripts, and their shared helpers.

Each script runs long by hand (``python reliability/kill_test.py`` ...) and short in the test suite
(``tests/test_reliability*.py``); RELIABILITY.md holds the figures of the last real runs.
"""
