"""The one training path: the TRAIN graph's session, its hooks, checkpoints and lock.

`train_model.train_model` is the path, read top to bottom; `hook_plan.plan` says
which hooks run, in which order, on the chief and on the other tasks.
"""
