"""Every TensorFlow private estimator_lib touches: the changes it makes (patches) and
the private names it reads (registry), each checked at import."""
