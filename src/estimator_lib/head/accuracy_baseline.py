"""The `accuracy_baseline` metric: the accuracy of always predicting one class."""

import tensorflow as tf

from estimator_lib.head.metric_keys import MetricKeys


class AccuracyBaseline(tf.keras.metrics.Metric):
    """max(label mean, 1 - label mean), read from a label-mean `Mean` metric.

    With weighted label mean m = total / count, always predicting 1 is right on a
    weighted fraction m of the examples and always predicting 0 on 1 - m, so the
    baseline is max(total, count - total) / count. It owns no state: it follows
    the label-mean metric, which the head updates.

    Args:
        label_mean: The head's label-mean `Mean` metric, which holds the state.
        name: The name (of the metric or head); None for none.
        **kwargs: Other arguments of `tf.keras.metrics.Metric`.
    """

    def __init__(self, label_mean: tf.keras.metrics.Mean,
                 name: str = MetricKeys.ACCURACY_BASELINE, **kwargs):
        super().__init__(name=name, **kwargs)
        self._label_mean = label_mean

    def update_state(self, *args, **kwargs):  # pylint: disable=unused-argument
        """Updates nothing: the label-mean metric holds the state and the head updates it.

        Args:
            *args: The update's arguments (ignored).
            **kwargs: Its keyword arguments (ignored).

        Returns:
            A constant True tensor, so that graph-mode evaluation has an update op for
            this metric.
        """
        # The label-mean metric carries the state; a tensor is still returned so
        # that graph-mode evaluation sees an update op for this metric.
        return tf.constant(True)

    def result(self):
        """The baseline accuracy from the label mean's state: max(total, count - total) / count.

        Returns:
            A scalar tensor; 0 before any example (count 0).
        """
        total = self._label_mean.total
        count = self._label_mean.count
        return tf.math.divide_no_nan(tf.maximum(total, count - total), count)

    def reset_state(self):
        """Resets nothing: the label-mean metric, which owns the state, is reset on its own."""
        pass
