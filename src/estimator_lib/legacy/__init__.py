"""What keeps legacy programs running unchanged: the tf.estimator aliases, the runner,
the v1 numpy/pandas input_fns, and the refusals of what is not re-provided."""
