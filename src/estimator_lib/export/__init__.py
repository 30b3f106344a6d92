"""`tf.estimator.export`: serving input receivers and export outputs.

The exporters of train_and_evaluate are in `exporters`, the SavedModel writing
in `saved_model`.
"""

from estimator_lib.export.receivers import ClassificationOutput  # noqa: F401
from estimator_lib.export.receivers import EvalOutput  # noqa: F401
from estimator_lib.export.receivers import ExportOutput  # noqa: F401
from estimator_lib.export.receivers import PredictOutput  # noqa: F401
from estimator_lib.export.receivers import RegressionOutput  # noqa: F401
from estimator_lib.export.receivers import ServingInputReceiver  # noqa: F401
from estimator_lib.export.receivers import TensorServingInputReceiver  # noqa: F401
from estimator_lib.export.receivers import build_parsing_serving_input_receiver_fn  # noqa: F401
from estimator_lib.export.receivers import build_raw_serving_input_receiver_fn  # noqa: F401
