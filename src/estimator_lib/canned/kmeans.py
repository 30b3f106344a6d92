"""KMeansClustering: k-means as an Estimator (tf.compat.v1.estimator.experimental.KMeans).

The clustering graph is TensorFlow's own `clustering_ops.KMeans` (still in TF 2.21), so
the variables are the original's: `clusters` (the centers), `initialized`, and with
mini-batches `clusters_updated`, `clusters_count`, `clusters_update_locked`. The
model_fn wraps it as the original did: one train step runs one Lloyd iteration (or one
mini-batch of one), the loss is the summed distance of each point to its nearest
center, `evaluate` reports it under `score`, and `predict` yields `all_distances` and
`cluster_index`. Training hooks choose the initial centers when the session starts and,
with `relative_tolerance`, stop when the loss stops changing.
"""

import time
from typing import Callable, Iterator, Optional, Sequence, Union

import numpy as np
import tensorflow as tf
# TensorFlow's k-means graph builder: the op sequence and variable names the original
# estimator built on; TF has no public API for it.
# pylint: disable=g-direct-tensorflow-import
from tensorflow.python.ops import clustering_ops
# pylint: enable=g-direct-tensorflow-import

from estimator_lib.engine.estimator_v1 import EstimatorV1
from estimator_lib.export.receivers import PredictOutput
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.run_config import RunConfig

# How long a non-chief worker waits between checks that the chief chose the centers.
_WORKER_WAIT_SECS = 1.0


class _LossRelativeChangeHook(tf.compat.v1.train.SessionRunHook):
    """Requests a stop once |loss - previous| / (1 + |previous|) falls below `tolerance`."""

    def __init__(self, loss_tensor: tf.Tensor, tolerance: float):
        self._loss_tensor = loss_tensor
        self._tolerance = tolerance
        self._prev_loss = None

    def before_run(self, run_context):
        del run_context
        return tf.compat.v1.train.SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        loss = run_values.results
        # A previous loss of exactly 0 starts the comparison over, as in the original.
        if self._prev_loss:
            change = abs(loss - self._prev_loss) / (1 + abs(self._prev_loss))
            if change < self._tolerance:
                run_context.request_stop()
        self._prev_loss = loss


class _InitializeClustersHook(tf.compat.v1.train.SessionRunHook):
    """Chooses the initial centers when a session starts.

    The chief runs `init_op` until `is_initialized_var` is true (a callable or random
    init may need several input batches to find all centers); other workers wait.
    """

    def __init__(self, init_op, is_initialized_var, is_chief: bool):
        self._init_op = init_op
        self._is_initialized_var = is_initialized_var
        self._is_chief = is_chief

    def after_create_session(self, session, coord):
        del coord
        if self._init_op.graph is not tf.compat.v1.get_default_graph():
            raise RuntimeError("The cluster initialization op is not in the session's graph.")
        while True:
            try:
                if session.run(self._is_initialized_var):
                    return
                if self._is_chief:
                    session.run(self._init_op)
                else:
                    time.sleep(_WORKER_WAIT_SECS)
            except RuntimeError as e:  # e.g. a closed queue: logged and retried, as before
                tf.compat.v1.logging.info(e)


def _input_points(features, feature_columns) -> tf.Tensor:
    """The (N, dims) points: `features` itself, or a dict's columns side by side.

    A dict goes through `feature_columns` when given (input_layer), else its values
    are concatenated in key order.
    """
    if not isinstance(features, dict):
        return features
    if feature_columns:
        return tf.compat.v1.feature_column.input_layer(features, feature_columns)
    keys = sorted(features)
    with tf.compat.v1.colocate_with(features[keys[0]]):
        return tf.concat([features[key] for key in keys], axis=1)


# The original's name for it.
_parse_features_if_necessary = _input_points


def _kmeans_model_fn(features, mode, config, *, num_clusters, initial_clusters,
                     distance_metric, seed, use_mini_batch, mini_batch_steps_per_iteration,
                     kmeans_plus_plus_num_retries, relative_tolerance, feature_columns):
    """The model_fn: takes no labels (the input_fn returns features, or (features, None))."""
    points = _input_points(features, feature_columns)
    # One input tensor, so each list below holds one item (clustering_ops shards lists).
    (all_distances, cluster_index, distances, is_initialized, init_op,
     training_op) = clustering_ops.KMeans(
         inputs=points, num_clusters=num_clusters, initial_clusters=initial_clusters,
         distance_metric=distance_metric, use_mini_batch=use_mini_batch,
         mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
         random_seed=seed,
         kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries).training_graph()
    loss = tf.math.reduce_sum(distances)
    tf.compat.v1.summary.scalar("loss/raw", loss)
    # clustering_ops does not count steps: the train op increments the global step too.
    incr_step = tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1)
    with tf.compat.v1.colocate_with(loss), tf.control_dependencies([training_op, incr_step]):
        train_op = tf.identity(loss, name="control_dependency")

    training_hooks = [_InitializeClustersHook(init_op, is_initialized, config.is_chief)]
    if relative_tolerance is not None:
        training_hooks.append(_LossRelativeChangeHook(loss, relative_tolerance))
    all_distances, cluster_index = all_distances[0], cluster_index[0]
    return EstimatorSpec(
        mode=mode,
        predictions={KMeansClustering.ALL_DISTANCES: all_distances,
                     KMeansClustering.CLUSTER_INDEX: cluster_index},
        loss=loss, train_op=train_op,
        eval_metric_ops={KMeansClustering.SCORE: tf.compat.v1.metrics.mean(loss)},
        training_hooks=training_hooks,
        export_outputs={
            KMeansClustering.ALL_DISTANCES: PredictOutput(all_distances),
            KMeansClustering.CLUSTER_INDEX: PredictOutput(cluster_index),
            tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(cluster_index),
        })


class KMeansClustering(EstimatorV1):
    """K-means clustering (tf.compat.v1.estimator.experimental.KMeans).

    Examples:
        Two full Lloyd iterations over 20 points, then the centers:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> points = np.random.RandomState(0).uniform(0, 10, [20, 2]).astype(np.float32)
        >>> def input_fn():
        ...     return tf.compat.v1.train.limit_epochs(tf.constant(points), num_epochs=1)
        >>> kmeans = KMeansClustering(  # tf.compat.v1.estimator.experimental.KMeans
        ...     num_clusters=2, use_mini_batch=False, model_dir=tempfile.mkdtemp())
        >>> for _ in range(2):
        ...     kmeans = kmeans.train(input_fn)
        >>> kmeans.cluster_centers().shape
        (2, 2)
        >>> len(list(kmeans.predict_cluster_index(input_fn)))
        20

    With `use_mini_batch=False` each train step runs one full Lloyd iteration over the
    batch the input_fn returns (it must return the whole data set). With mini-batches,
    each step accumulates one batch and every `mini_batch_steps_per_iteration` steps
    the centers are updated (1: the standard mini-batch algorithm).

    The exported SavedModel holds no centers accessor; `cluster_centers()` reads the
    checkpoint's `CLUSTER_CENTERS_VAR_NAME` variable.

    Args:
        num_clusters: The number of clusters (an int or an int Tensor); ignored when
            `initial_clusters` is a Tensor or array of centers.
        model_dir: Where checkpoints and summaries go.
        initial_clusters: RANDOM_INIT (points of the first batches), KMEANS_PLUS_PLUS_INIT
            (k-means++ on the first batch, which must hold at least `num_clusters`
            points), a Tensor or numpy array of initial centers, or a callable
            `f(inputs, k)` returning up to `k` centers, called on successive batches
            until all are chosen.
        distance_metric: SQUARED_EUCLIDEAN_DISTANCE or COSINE_DISTANCE.
        seed: Seed of the random choice of initial centers.
        use_mini_batch: Whether to run mini-batch k-means (see above).
        mini_batch_steps_per_iteration: Steps between center updates (mini-batch only).
        kmeans_plus_plus_num_retries: Extra points drawn per k-means++ sample (negative:
            O(log(num_to_sample))).
        relative_tolerance: Stop training once the loss changes relatively less than
            this between steps (may not work with mini-batches).
        config: A `RunConfig`.
        feature_columns: Feature columns for `input_layer` when features are a dict;
            None uses every feature, concatenated in key order.

    Raises:
        ValueError: If `initial_clusters` is an unknown name or `distance_metric` is
            unknown.
    """

    SQUARED_EUCLIDEAN_DISTANCE = clustering_ops.SQUARED_EUCLIDEAN_DISTANCE
    COSINE_DISTANCE = clustering_ops.COSINE_DISTANCE
    RANDOM_INIT = clustering_ops.RANDOM_INIT
    KMEANS_PLUS_PLUS_INIT = clustering_ops.KMEANS_PLUS_PLUS_INIT
    # evaluate()'s metric: the summed distance of the points to their nearest centers.
    SCORE = "score"
    # predict()'s keys: distances to every center, index of the nearest one.
    CLUSTER_INDEX = "cluster_index"
    ALL_DISTANCES = "all_distances"
    CLUSTER_CENTERS_VAR_NAME = clustering_ops.CLUSTERS_VAR_NAME

    def __init__(self, num_clusters: Union[int, tf.Tensor], model_dir: Optional[str] = None,
                 initial_clusters: Union[str, Callable, tf.Tensor, np.ndarray] = RANDOM_INIT,
                 distance_metric: str = SQUARED_EUCLIDEAN_DISTANCE, seed: Optional[int] = None,
                 use_mini_batch: bool = True, mini_batch_steps_per_iteration: int = 1,
                 kmeans_plus_plus_num_retries: int = 2,
                 relative_tolerance: Optional[float] = None,
                 config: Optional[RunConfig] = None,
                 feature_columns: Optional[Sequence] = None):
        init_names = (self.RANDOM_INIT, self.KMEANS_PLUS_PLUS_INIT)
        if isinstance(initial_clusters, str) and initial_clusters not in init_names:
            raise ValueError(
                f"Unsupported initialization algorithm '{initial_clusters}': "
                f"`initial_clusters` must be one of {init_names}, a callable, or a Tensor "
                f"or array of initial centers.")
        metrics = (self.SQUARED_EUCLIDEAN_DISTANCE, self.COSINE_DISTANCE)
        if distance_metric not in metrics:
            raise ValueError(f"Unsupported distance metric '{distance_metric}': "
                             f"`distance_metric` must be one of {metrics}.")
        self._distance_metric = distance_metric
        model_args = dict(
            num_clusters=num_clusters, initial_clusters=initial_clusters,
            distance_metric=distance_metric, seed=seed, use_mini_batch=use_mini_batch,
            mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
            kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries,
            relative_tolerance=relative_tolerance, feature_columns=feature_columns)

        def _model_fn(features, mode, config):
            return _kmeans_model_fn(features, mode, config, **model_args)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)

    def _predict_one_key(self, input_fn: Callable, predict_key: str) -> Iterator:
        for result in self.predict(input_fn=input_fn, predict_keys=[predict_key]):
            yield result[predict_key]

    def predict_cluster_index(self, input_fn: Callable) -> Iterator:
        """Yields the index of the nearest center of each input point."""
        yield from self._predict_one_key(input_fn, self.CLUSTER_INDEX)

    def score(self, input_fn: Callable) -> float:
        """Returns the summed squared distance of the first batch's points to their centers.

        Positive (scikit-learn's `score` is its negative); one batch is read.
        """
        return self.evaluate(input_fn=input_fn, steps=1)[self.SCORE]

    def transform(self, input_fn: Callable) -> Iterator:
        """Yields each point's distances to all centers.

        Euclidean (the square root of the model's squared distances) under
        SQUARED_EUCLIDEAN_DISTANCE, as scikit-learn's `transform`; cosine otherwise.
        """
        for distances in self._predict_one_key(input_fn, self.ALL_DISTANCES):
            if self._distance_metric == self.SQUARED_EUCLIDEAN_DISTANCE:
                yield np.sqrt(distances)
            else:
                yield distances

    def cluster_centers(self) -> np.ndarray:
        """Returns the centers, read from the latest checkpoint."""
        return self.get_variable_value(self.CLUSTER_CENTERS_VAR_NAME)
