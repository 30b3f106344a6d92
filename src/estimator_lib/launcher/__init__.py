"""The local launcher behind `python -m estimator_lib.launch`: the tasks of a
multi-worker or parameter-server job started as processes on 127.0.0.1, each with its
TF_CONFIG, and the equivalent Kubeflow TFJob manifest.

Standard library only: it imports nothing of the library (and so no TensorFlow), and
starts in milliseconds.
"""
