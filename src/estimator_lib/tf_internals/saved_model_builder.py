"""The train op recorded in a SavedModel's TRAIN MetaGraph, as the original did.

TensorFlow's v1 SavedModel builder has no public way to store the train op (the
`saved_model_train_op` collection SavedModelEstimator trains with): the original
Estimator called the builder's private `_add_train_op`, and so does this.
"""


def add_train_op(builder, train_op) -> None:
    """Records `train_op` in the MetaGraph `builder` adds next."""
    builder._add_train_op(train_op)  # pylint: disable=protected-access
