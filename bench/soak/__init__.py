"""Soak with faults; run it as `python -m bench.soak` (see __main__.py)."""
