"""The training graph of one train() call: step, input, model_fn, loop, restore, saver.

`built(model, input_fn, job)` makes a new graph under the job's strategy scope (or
device function), builds it, and yields what the rest of the training path needs
while the graph stays the default: the TRAIN spec, the input's hooks, the
steps-per-run loop, the checkpoint restored from and the step tensor the logging
hook reports.
"""

import contextlib
import dataclasses
from typing import Callable, Iterator, Optional

import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.distribute import replica_specs
from estimator_lib.distribute import strategies
from estimator_lib.distribute.job_shape import JobShape
from estimator_lib.graph import restore
from estimator_lib.graph.model_graph import ModelGraph
from estimator_lib.training import steps_loop


@dataclasses.dataclass(frozen=True)
class TrainGraph:
    """What train_model needs of the graph it trains.

    Attributes:
        spec: The TRAIN EstimatorSpec (the loop's, with steps_per_run > 1).
        input_hooks: The input's hooks (iterator initialisers).
        loop: The steps_loop.TrainLoop, or None with one step per run.
        restore_from: The checkpoint the session restores, or None.
        step: The global-step tensor the logging hook reports.
    """
    spec: EstimatorSpec
    input_hooks: list
    loop: Optional[steps_loop.TrainLoop]
    restore_from: Optional[str]
    step: tf.Tensor


@contextlib.contextmanager
def built(model: ModelGraph, input_fn: Callable, job: JobShape) -> Iterator[TrainGraph]:
    """The training graph of `model` on `input_fn`, built in a new graph that stays the
    default, under the job's strategy scope or device function, inside the block.

    Args:
        model: The model_fn, params and RunConfig (model_dir, cadences).
        input_fn: The training input_fn.
        job: The job's shape (its strategy or device function, its steps per run).

    Raises:
        ValueError: If the job's steps per run cannot run in the in-graph loop.
    """
    if job.steps_per_run > 1:
        steps_loop.check_supported(job)
    with tf.Graph().as_default() as graph, strategies.train_scope(
            graph, job.strategy, job.device_fn):
        yield _build(graph, model, input_fn, job)


def _build(graph, model: ModelGraph, input_fn: Callable, job: JobShape) -> TrainGraph:
    config = model.config
    model.start_graph(graph)
    build_step, input_hooks = _train_step(model, input_fn, job.strategy, job.steps_per_run)
    loop = None
    if job.steps_per_run == 1:
        spec = build_step()
    else:
        loop = steps_loop.make_train_loop(build_step, steps_per_run=job.steps_per_run)
        spec = loop.spec
    restore_from = restore.newest_readable(config.model_dir)
    model.prepare_restore_or_warm_start(spec, restore_from, verified=True)
    _add_loss_summary(spec.loss)
    _add_saver(spec.scaffold, config)
    return TrainGraph(
        spec=spec, input_hooks=input_hooks, loop=loop, restore_from=restore_from,
        step=training_util._get_or_create_global_step_read())  # pylint: disable=protected-access


def _train_step(model: ModelGraph, input_fn, strategy, steps_per_run):
    """(build_step, input hooks): build_step calls model_fn on the next batch.

    The input is `graph/inputs.read`'s, one path for every branch. With
    `train_distribute`, model_fn runs once per replica, as the original.
    """
    get_next, input_hooks = model.input(input_fn, ModeKeys.TRAIN, strategy=strategy,
                                        steps_per_run=steps_per_run)

    def call_model_fn(features, labels):
        return model.call_model_fn(features, labels, ModeKeys.TRAIN)

    if strategy is not None:
        return (lambda: replica_specs.train_spec(strategy, call_model_fn, *get_next())), \
            input_hooks
    return (lambda: call_model_fn(*get_next())), input_hooks


def _add_loss_summary(loss) -> None:
    """A `loss` scalar summary, unless the model_fn (or a head) wrote one.

    The original's rule, a summary op named `loss`, and also any scalar tagged `loss`:
    a second one would fail the merged summary ("Duplicate tag loss").
    """
    for summary in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES):
        if summary.op.name == "loss" or (summary.op.type == "ScalarSummary" and tf.get_static_value(
                summary.op.inputs[0]) in (b"loss", "loss")):
            return
    # The tag is "loss" whatever ops the model_fn named "loss" (summary.scalar would
    # write "loss_1" for a Keras model, as the original did, so that training and
    # evaluation curves never shared a chart: docs/estimator.md, deliberate differences).
    summary = tf.raw_ops.ScalarSummary(tags="loss", values=loss, name="loss_summary")
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SUMMARIES, summary)


def _add_saver(scaffold, config) -> None:
    """Puts the saver checkpoints are written with in the SAVERS collection.

    The scaffold's own saver if it has one (hooks that save the variables find it
    there), else the Estimator's default one.
    """
    if tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVERS):
        return
    saver = scaffold.saver or tf.compat.v1.train.Saver(
        sharded=True, max_to_keep=config.keep_checkpoint_max,
        keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
        defer_build=True, save_relative_paths=True)
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SAVERS, saver)
