"""estimator_lib.tpu: tf.compat.v1.estimator.tpu for CPUs and GPUs (use_tpu=False).

Module names follow the original package (tpu_estimator, tpu_config, util) so that
`tensorflow_estimator.python.estimator.tpu.*` can alias them.
"""

from estimator_lib.tpu import experimental
from estimator_lib.tpu.tpu_config import InputPipelineConfig
from estimator_lib.tpu.tpu_config import RunConfig
from estimator_lib.tpu.tpu_config import TPUConfig
from estimator_lib.tpu.tpu_estimator import TPUEstimator
from estimator_lib.tpu.tpu_estimator_spec import TPUEstimatorSpec

__all__ = ["InputPipelineConfig", "RunConfig", "TPUConfig", "TPUEstimator",
           "TPUEstimatorSpec", "experimental"]
