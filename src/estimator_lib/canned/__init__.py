"""The canned estimators of tf.estimator / tf.compat.v1.estimator, re-provided.

`*V2` classes are `tf.estimator.*` (v2 feature columns, tf_keras legacy
optimizers, loss reduced with SUM_OVER_BATCH_SIZE); the classes without the
suffix are `tf.compat.v1.estimator.*` (v1 columns and optimizers, SUM), as in the
original's modules `dnn`, `linear`, `dnn_linear_combined` and `baseline`.
"""

from estimator_lib.canned.dnn import DNNClassifier
from estimator_lib.canned.dnn import DNNClassifierV2
from estimator_lib.canned.dnn import DNNEstimator
from estimator_lib.canned.dnn import DNNEstimatorV2
from estimator_lib.canned.dnn import DNNRegressor
from estimator_lib.canned.dnn import DNNRegressorV2
from estimator_lib.canned.linear import LinearClassifier
from estimator_lib.canned.linear import LinearClassifierV2
from estimator_lib.canned.linear import LinearEstimator
from estimator_lib.canned.linear import LinearEstimatorV2
from estimator_lib.canned.linear import LinearRegressor
from estimator_lib.canned.linear import LinearRegressorV2
from estimator_lib.canned.dnn_linear_combined import DNNLinearCombinedClassifier
from estimator_lib.canned.dnn_linear_combined import DNNLinearCombinedClassifierV2
from estimator_lib.canned.dnn_linear_combined import DNNLinearCombinedEstimator
from estimator_lib.canned.dnn_linear_combined import DNNLinearCombinedEstimatorV2
from estimator_lib.canned.dnn_linear_combined import DNNLinearCombinedRegressor
from estimator_lib.canned.dnn_linear_combined import DNNLinearCombinedRegressorV2
from estimator_lib.canned.baseline import BaselineClassifier
from estimator_lib.canned.baseline import BaselineClassifierV2
from estimator_lib.canned.baseline import BaselineEstimator
from estimator_lib.canned.baseline import BaselineEstimatorV2
from estimator_lib.canned.baseline import BaselineRegressor
from estimator_lib.canned.baseline import BaselineRegressorV2

# The 24 classes, as the reference's canned page shows them (the mappings below are for
# the compat layer, not for users).
__all__ = [f"{kind}{role}{version}" for kind in ("DNN", "Linear", "DNNLinearCombined", "Baseline")
           for role in ("Classifier", "Regressor", "Estimator") for version in ("V2", "")]

from estimator_lib.canned import baseline as _baseline  # noqa: E402
from estimator_lib.canned import dnn as _dnn  # noqa: E402
from estimator_lib.canned import dnn_linear_combined as _dnn_linear_combined  # noqa: E402
from estimator_lib.canned import kmeans as _kmeans  # noqa: E402
from estimator_lib.canned import linear as _linear  # noqa: E402

_KINDS = ("DNN", "Linear", "DNNLinearCombined", "Baseline")
_MODULE_OF = {"DNN": _dnn, "Linear": _linear, "DNNLinearCombined": _dnn_linear_combined,
              "Baseline": _baseline}

# For the compat layer: tf.estimator.<name> and tf.compat.v1.estimator.<name>.
TF_ESTIMATOR = {f"{kind}{role}": getattr(_MODULE_OF[kind], f"{kind}{role}V2")
                for kind in _KINDS for role in ("Classifier", "Regressor", "Estimator")}
TF_COMPAT_V1_ESTIMATOR = {f"{kind}{role}": getattr(_MODULE_OF[kind], f"{kind}{role}")
                          for kind in _KINDS for role in ("Classifier", "Regressor", "Estimator")}
# tf.compat.v1.estimator.experimental.<name>
TF_COMPAT_V1_ESTIMATOR_EXPERIMENTAL = {
    "dnn_logit_fn_builder": _dnn.dnn_logit_fn_builder,
    "linear_logit_fn_builder": _linear.linear_logit_fn_builder,
    "KMeans": _kmeans.KMeansClustering,
}
# The original's module paths -> ours (tensorflow_estimator.python.estimator.canned.*).
MODULES = {f"tensorflow_estimator.python.estimator.canned.{name}": f"estimator_lib.canned.{name}"
           for name in ("baseline", "dnn", "dnn_linear_combined", "linear", "optimizers",
                        "rnn", "saved_model_estimator")}
