"""Reference data recorded from the original tf.estimator, and the code its generators share."""
