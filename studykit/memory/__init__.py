"""Your own memory model: FSRS optimizer, a synthetic learner, the workload curve.

`optimize` needs torch (the `torch` extra); nothing here is imported at start-up.
"""
