"""The original tpu_estimator.py's and tpu/util.py's public helpers that need no TPU.

Legacy TPU code imports them from `tensorflow_estimator.python.estimator.tpu.
tpu_estimator` and `.tpu.util`; they are re-exported from our modules of those names.
The infeed/outfeed hooks, enqueue-op generators and `inference_on_tpu` of the same
module need TPU hardware and are not re-provided.
"""

import collections
import signal
import time
from typing import Optional, Sequence

import tensorflow as tf

logging = tf.compat.v1.logging


class BatchConfig(collections.namedtuple("BatchConfig", [
        "num_batch_threads", "max_batch_size", "batch_timeout_micros",
        "allowed_batch_sizes", "max_enqueued_batches"])):
    """The batching options of a TPU inference export (`tf.nondifferentiable_batch_function`'s)."""

    def __new__(cls, num_batch_threads: int, max_batch_size: int,
                batch_timeout_micros: int, allowed_batch_sizes: Optional[Sequence[int]],
                max_enqueued_batches: int = 100):
        """Creates a BatchConfig.

        Args:
            num_batch_threads: Threads processing batches, so batches run in parallel.
            max_batch_size: The largest batch.
            batch_timeout_micros: How long to wait before running an incomplete batch.
            allowed_batch_sizes: Sizes batches are padded up to (increasing, the last
                equal to `max_batch_size`), or empty/None for no padding.
            max_enqueued_batches: The queue length of batches waiting to run.
        """
        return super().__new__(
            cls, num_batch_threads=num_batch_threads, max_batch_size=max_batch_size,
            batch_timeout_micros=batch_timeout_micros,
            allowed_batch_sizes=allowed_batch_sizes,
            max_enqueued_batches=max_enqueued_batches)


class PeriodicLogger:
    """Logs at INFO at most once every `seconds` (the first call always logs)."""

    def __init__(self, seconds: float, *, clock=time.time):
        self._log_every_n_seconds = seconds
        self._last_log_time = 0
        self._clock = clock

    def log(self, msg, *args, **kw) -> None:
        """`logging.info(msg, *args, **kw)` if `seconds` passed since the last one.

        Args:
            msg: The message (a %-format).
            *args: Its arguments.
            **kw: `logging.info`'s keyword arguments.
        """
        now = self._clock()
        if now - self._last_log_time > self._log_every_n_seconds:
            self._last_log_time = now
            logging.info(msg, *args, **kw)


class InstallSignalHandlerHook(tf.compat.v1.train.SessionRunHook):
    """Lets Ctrl-C (SIGINT) kill the process during the run; the handler is restored at end.

    The handler in force when the hook is built is the one restored. Signal handlers
    can only be set from the main thread, as in the original.
    """

    def __init__(self):
        self._signal_fn = signal.getsignal(signal.SIGINT)

    def before_run(self, run_context):
        """Restores SIGINT's default action, so that Ctrl-C ends the process.

        Args:
            run_context: The `SessionRunContext` of the run (unused).
        """
        del run_context
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    def end(self, session):
        """Puts back the SIGINT handler in force when the hook was built.

        Args:
            session: The session about to close (unused).
        """
        del session
        signal.signal(signal.SIGINT, self._signal_fn)


class MultiHostDatasetInitializerHook(tf.compat.v1.train.SessionRunHook):
    """Runs the given dataset initializers once the session exists, logging how long."""

    def __init__(self, dataset_initializers):
        self._initializers = dataset_initializers

    def after_create_session(self, session, coord):
        """Runs the dataset initializers and logs how many seconds they took.

        Args:
            session: The session just created.
            coord: The session's coordinator (unused).
        """
        del coord
        start = time.time()
        session.run(self._initializers)
        logging.info("Initialized dataset iterators in %d seconds", time.time() - start)


_NO_TPU_INFERENCE = (
    "{name} runs the model_fn on TPU cores for serving, and estimator_lib runs "
    "TPUEstimator programs on CPUs and GPUs only (no TPU is reachable here). Export "
    "with `TPUEstimator(use_tpu=False).export_saved_model(...)`, whose CPU MetaGraph "
    "serves the same model (docs/estimator.md, deliberate difference 18).")


def inference_on_tpu(computation, inputs_to_tpu, num_batch_threads, max_batch_size,
                     batch_timeout_micros, allowed_batch_sizes=None,
                     max_enqueued_batches=100):
    """Refuses, naming why: the original ran `computation` batched on TPU cores.

    Here for the programs and libraries that name it (adanet's TPU estimator does);
    the parameters are the original's.

    Args:
        computation: The function the original ran on TPU cores.
        inputs_to_tpu: Its input tensors.
        num_batch_threads: The batching threads the original started.
        max_batch_size: The largest batch.
        batch_timeout_micros: How long a batch waited to fill.
        allowed_batch_sizes: The batch sizes padded to, or None.
        max_enqueued_batches: The batches queued at most.

    Raises:
        RuntimeError: Always: it needs a TPU.
    """
    del (computation, inputs_to_tpu, num_batch_threads, max_batch_size,
         batch_timeout_micros, allowed_batch_sizes, max_enqueued_batches)
    raise RuntimeError(_NO_TPU_INFERENCE.format(name="inference_on_tpu"))


def model_fn_inference_on_tpu(model_fn, features, labels=None, config=None, params=None,
                              batch_config=None):
    """Refuses, naming why: the original ran `model_fn`'s PREDICT graph on TPU cores.

    Here for the programs and libraries that name it (adanet 0.9.0's TPU estimator
    does); the parameters are the original's.

    Args:
        model_fn: The model_fn the original called in PREDICT mode on TPU cores.
        features: The serving features.
        labels: The labels, or None.
        config: The RunConfig, or None.
        params: The params dict, or None.
        batch_config: A `BatchConfig` for server-side batching, or None.

    Raises:
        RuntimeError: Always: it needs a TPU.
    """
    del model_fn, features, labels, config, params, batch_config
    raise RuntimeError(_NO_TPU_INFERENCE.format(name="model_fn_inference_on_tpu"))
