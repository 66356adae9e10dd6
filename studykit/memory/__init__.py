"""Your own memory model: FSRS fitted by fsrs-rs, a synthetic learner, the workload curve.

`optimize` and the recommended retention need fsrs-rs-python (the `memory` extra), the
workload curve numpy; nothing here is imported at start-up.
"""
