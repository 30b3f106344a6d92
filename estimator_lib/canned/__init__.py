"""The canned estimators of tf.estimator / tf.compat.v1.estimator, re-provided.

`*V2` classes are tf.estimator.* (v2 feature columns, tf_keras legacy
optimizers, loss reduced with SUM_OVER_BATCH_SIZE); the classes without the
suffix are tf.compat.v1.estimator.* (v1 columns and optimizers, SUM), as in the
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
