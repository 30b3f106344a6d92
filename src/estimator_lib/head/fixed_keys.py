"""Fixes a head's metric keys at construction, as the original's heads did.

The original's v2 heads computed their metric keys from `name` in `__init__` and kept
each on the instance (`_loss_mean_key`, `_accuracy_key`, ..., and the per-threshold
`_accuracy_keys`, `_precision_keys`, `_recall_keys`), which `metrics()` and
`update_metrics()` read at call time. A `_name` replaced on a built head therefore
left the metric keys as they were there, and here too; a key attribute replaced on
the instance renames its metric (docs/estimator.md, "Call-time reads").
"""

from estimator_lib.head.metric_keys import MetricKeys

# MetricKeys name -> the original's attribute for its key.
KEY_ATTRIBUTES = {
    MetricKeys.LOSS_MEAN: "_loss_mean_key",
    MetricKeys.ACCURACY: "_accuracy_key",
    MetricKeys.PRECISION: "_precision_key",
    MetricKeys.RECALL: "_recall_key",
    MetricKeys.PREDICTION_MEAN: "_prediction_mean_key",
    MetricKeys.LABEL_MEAN: "_label_mean_key",
    MetricKeys.ACCURACY_BASELINE: "_accuracy_baseline_key",
    MetricKeys.AUC: "_auc_key",
    MetricKeys.AUC_PR: "_auc_pr_key",
    MetricKeys.LOSS_REGULARIZATION: "_loss_regularization_key",
}

# Template -> the original's attribute for the per-threshold keys (binary head).
THRESHOLD_ATTRIBUTES = {
    MetricKeys.ACCURACY_AT_THRESHOLD: "_accuracy_keys",
    MetricKeys.PRECISION_AT_THRESHOLD: "_precision_keys",
    MetricKeys.RECALL_AT_THRESHOLD: "_recall_keys",
}


def keep(head, *names) -> None:
    """Sets on `head` the key attribute of each metric in `names` (and of the
    regularization loss), computed now from its `name`."""
    for name in names + (MetricKeys.LOSS_REGULARIZATION,):
        setattr(head, KEY_ATTRIBUTES[name], head._summary_key(name))  # pylint: disable=protected-access


def keep_thresholds(head, thresholds) -> None:
    """Sets on `head` the per-threshold key tuples, one key per threshold."""
    for template, attribute in THRESHOLD_ATTRIBUTES.items():
        setattr(head, attribute, tuple(
            head._summary_key(template % threshold)  # pylint: disable=protected-access
            for threshold in thresholds))


def key(head, name: str) -> str:
    """The key of metric `name` on `head`: the one its attribute holds, or, for a head
    built without it (a subclass that does not call `keep`), from its name now."""
    fixed = getattr(head, KEY_ATTRIBUTES.get(name, ""), None)
    return fixed if fixed is not None else head._summary_key(name)  # pylint: disable=protected-access
