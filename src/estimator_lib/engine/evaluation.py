"""One evaluation pass over a checkpoint, and the eval summaries it writes."""

import os
import time
from typing import Dict, List, NamedTuple, Optional

import numpy as np
import tensorflow as tf
from google.protobuf import message

from estimator_lib.training import session as session_lib

logging = tf.compat.v1.logging


class EvalGraph(NamedTuple):
    """What `Estimator.evaluate` built in its graph, to run once or several times."""
    scaffold: tf.compat.v1.train.Scaffold
    update_op: tf.Operation
    final_ops: Dict[str, tf.Tensor]
    input_hooks: List[tf.compat.v1.train.SessionRunHook]
    evaluation_hooks: List[tf.compat.v1.train.SessionRunHook]


def eval_graph(spec, update_op, global_step, input_hooks) -> EvalGraph:
    """The EvalGraph of evaluate()'s spec: its metrics' values and the global step as
    final ops, and a scaffold whose local init covers the `loss` mean too.

    Args:
        spec: The EVAL `EstimatorSpec`.
        update_op: The op updating every metric with one batch.
        global_step: The global step (a tensor for `eval_graph`, an int for the summaries).
        input_hooks: The input_fn's hooks.

    Returns:
        An `EvalGraph`.
    """
    final_ops = {name: value for name, (value, _) in spec.eval_metric_ops.items()}
    if global_step is None:
        # The model_fn brought the global step (SavedModelEstimator imports the
        # SavedModel's); the original also read it after the model_fn.
        global_step = tf.compat.v1.train.get_global_step()
    final_ops["global_step"] = global_step
    scaffold = spec.scaffold
    if scaffold.local_init_op is not None:
        # The model_fn's own local_init_op misses the local variables made after it
        # (the `loss` mean): the default initialises them too, as the original did.
        scaffold = tf.compat.v1.train.Scaffold(
            local_init_op=tf.group(scaffold.local_init_op,
                                   tf.compat.v1.train.Scaffold.default_local_init_op()),
            copy_from_scaffold=scaffold)
    return EvalGraph(scaffold=scaffold, update_op=update_op, final_ops=final_ops,
                     input_hooks=input_hooks, evaluation_hooks=list(spec.evaluation_hooks))


class StopAfterNEvalsHook(tf.compat.v1.train.SessionRunHook):
    """Stops after `num_evals` runs (None: until the input ends).

    Logs `Evaluation [k/n]` progress when `num_evals` is known; with None, nothing
    per batch (the original's log).
    """

    def __init__(self, num_evals: Optional[int], log_progress: bool = True):
        self._num_evals = num_evals
        self._log_progress = log_progress
        self._done = 0
        self._log_every = 1 if not num_evals or num_evals < 20 else num_evals // 10

    def after_run(self, run_context, run_values):
        """Counts the run, logs progress, and requests a stop after `num_evals` runs.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues` (unused).
        """
        self._done += 1
        if self._log_progress and self._num_evals is not None and (
                self._done % self._log_every == 0 or self._done == self._num_evals):
            logging.info("Evaluation [%d/%d]", self._done, self._num_evals)
        if self._num_evals is not None and self._done >= self._num_evals:
            run_context.request_stop()

    @property
    def evals_completed(self) -> int:
        """How many evaluation runs (batches) have completed."""
        return self._done


def run_evaluation(*, checkpoint_path: Optional[str], scaffold, update_op, final_ops: dict,
                   hooks, master: str, session_config) -> Dict[str, np.ndarray]:
    """Runs `update_op` until the hooks stop, then returns the values of `final_ops`.

    Args:
        checkpoint_path: The checkpoint to evaluate, or None to initialise.
        scaffold: The `Scaffold`.
        update_op: The op updating every metric with one batch.
        final_ops: A dict of name to the tensor read at the end.
        hooks: The evaluation hooks (one stops the loop).
        master: The session target.
        session_config: The session's `ConfigProto`.

    Returns:
        A dict of name to value.
    """
    final_hook = tf.compat.v1.train.FinalOpsHook(final_ops)
    logging.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S"))
    start = time.time()
    with session_lib.local_session(
            scaffold=scaffold, checkpoint_path=checkpoint_path, master=master,
            config=session_config, hooks=list(hooks) + [final_hook]) as session:
        while not session.should_stop():
            session.run(update_op)
    logging.info("Inference Time : %.5fs", time.time() - start)
    logging.info("Finished evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S"))
    return final_hook.final_ops_values


def _format(results: dict) -> str:
    return ", ".join(f"{k} = {str(results[k])}" for k in sorted(results))


def write_dict_to_summary(output_dir: str, results: dict, global_step: int) -> None:
    """Writes every scalar of `results` as a summary at `global_step` (the original's way).

    Args:
        output_dir: The evaluation's directory (`eval_dir`).
        results: The evaluation's results dict.
        global_step: The global step (a tensor for `eval_graph`, an int for the summaries).
    """
    logging.info("Saving dict for global step %d: %s", global_step, _format(results))
    summary = tf.compat.v1.Summary()
    for key, value in results.items():
        if key == "global_step":
            continue
        if isinstance(value, (np.floating, float)):
            summary.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, (np.integer, int, np.bool_, bool)):
            summary.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, bytes):
            # A serialized Summary (a metric made by a summary op): its values, each
            # tagged `<key>/<i>`, as the original.
            try:
                parsed = tf.compat.v1.Summary.FromString(value)
            except message.DecodeError:
                logging.warning("Skipping summary for %s, cannot parse string to Summary.", key)
                continue
            for i, parsed_value in enumerate(parsed.value):
                parsed_value.tag = f"{key}/{i}"
            summary.value.extend(parsed.value)
        elif isinstance(value, np.ndarray) and value.ndim == 0:
            summary.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, np.ndarray):
            # A non-scalar metric: a tensor summary (TensorBoard shows it with a plugin).
            summary.value.add(tag=key, node_name=key, tensor=tf.make_tensor_proto(value))
            logging.info("Summary for np.ndarray is not visible in Tensorboard by default. "
                         "Consider using a Tensorboard plugin for visualization.")
        else:
            logging.warning("Skipping summary for %s, must be a float, np.float32, np.int64, "
                            "np.int32 or int or a serialized string of Summary.", key)
    _write_summary(output_dir, summary, global_step)


def write_checkpoint_path_to_summary(output_dir: str, checkpoint_path: str,
                                     global_step: int) -> None:
    """Records which checkpoint an evaluation read, as a text summary.

    Args:
        output_dir: The evaluation's directory (`eval_dir`).
        checkpoint_path: The checkpoint to evaluate, or None to initialise.
        global_step: The global step (a tensor for `eval_graph`, an int for the summaries).
    """
    logging.info("Saving 'checkpoint_path' summary for global step %d: %s", global_step,
                 checkpoint_path)
    tensor = tf.make_tensor_proto(checkpoint_path.encode(), dtype=tf.string)
    summary = tf.compat.v1.Summary()
    summary.value.add(
        tag="checkpoint_path", tensor=tensor,
        metadata=tf.compat.v1.SummaryMetadata(
            plugin_data=tf.compat.v1.SummaryMetadata.PluginData(plugin_name="text")))
    _write_summary(output_dir, summary, global_step)


def _write_summary(output_dir, summary, global_step):
    # FileWriterCache refuses eager mode; a throw-away graph context satisfies it.
    with tf.Graph().as_default():
        writer = tf.compat.v1.summary.FileWriterCache.get(output_dir)
        writer.add_summary(summary, global_step)
        writer.flush()


def eval_dir(model_dir: str, name: Optional[str] = None) -> str:
    """The folder an evaluation writes its summaries to.

    Args:
        model_dir: The Estimator's model_dir.
        name: The evaluation's name (`Estimator.evaluate(name=...)`), or None.

    Returns:
        `model_dir/eval`, or `model_dir/eval_<name>` for a named evaluation.
    """
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)
