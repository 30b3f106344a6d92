"""TPUEstimator's train, evaluate and predict end with the original's log lines.

The original's TPUEstimator ran each of them inside an error rendezvous that logs
`training_loop marked as finished` (`evaluation_loop`, `prediction_loop`: twice
after a predict that ran to its end) when the call ends, and `Reraising captured
error` (WARNING) before an error propagates; also on CPU.
"""

from typing import Callable, Iterable, Optional

import tensorflow as tf

logging = tf.compat.v1.logging


def _finished(loop: str) -> None:
    logging.info("%s marked as finished", loop)


def _reraising() -> None:
    logging.warning("Reraising captured error")


class LoopLogs:
    """Mixed into TPUEstimator, before the Estimator: its calls logged as the original's."""

    def train(self, input_fn: Callable, hooks: Optional[Iterable] = None,
              steps: Optional[int] = None, max_steps: Optional[int] = None,
              saving_listeners: Optional[Iterable] = None):
        """Trains as `Estimator.train` does, then logs the original's loop-end line.

        Args:
            input_fn: Returns the training input (see `Estimator.train`).
            hooks: `SessionRunHook`s run in the training loop.
            steps: How many more steps to train.
            max_steps: The global step to stop at (not with `steps`).
            saving_listeners: `CheckpointSaverListener`s called around saves.

        Returns:
            This estimator.

        Raises:
            ValueError: As `Estimator.train`; any error is logged as re-raised first.
        """
        try:
            result = super().train(input_fn=input_fn, hooks=hooks, steps=steps,
                                   max_steps=max_steps, saving_listeners=saving_listeners)
        except Exception:
            _finished("training_loop")
            _reraising()
            raise
        _finished("training_loop")
        return result

    def evaluate(self, input_fn: Callable, steps: Optional[int] = None,
                 hooks: Optional[Iterable] = None, checkpoint_path: Optional[str] = None,
                 name: Optional[str] = None):
        """Evaluates as `Estimator.evaluate` does, then logs the original's loop-end line.

        Args:
            input_fn: Returns the evaluation input (see `Estimator.evaluate`).
            steps: How many batches to evaluate; None reads until the input ends.
            hooks: `SessionRunHook`s run in the evaluation.
            checkpoint_path: The checkpoint to evaluate; None takes the newest.
            name: Names the evaluation (its summaries go to `eval_<name>`).

        Returns:
            The metrics dict, `loss` and `global_step` included.

        Raises:
            ValueError: As `Estimator.evaluate`; any error is logged as re-raised first.
        """
        try:
            result = super().evaluate(input_fn, steps=steps, hooks=hooks,
                                      checkpoint_path=checkpoint_path, name=name)
        except Exception:
            _finished("evaluation_loop")
            _reraising()
            raise
        _finished("evaluation_loop")
        return result

    def predict(self, input_fn: Callable, predict_keys=None,
                hooks: Optional[Iterable] = None, checkpoint_path: Optional[str] = None,
                yield_single_examples: bool = True):
        """Predicts as `Estimator.predict` does, then logs the original's loop-end lines.

        Args:
            input_fn: Returns the features (see `Estimator.predict`).
            predict_keys: The prediction keys to yield; None yields all.
            hooks: `SessionRunHook`s run in the prediction session.
            checkpoint_path: The checkpoint to predict with; None takes the newest.
            yield_single_examples: True yields examples one by one, False batches.

        Yields:
            The predictions, per example or per batch.

        Raises:
            ValueError: As `Estimator.predict`; any error is logged as re-raised first.
        """
        try:
            yield from super().predict(
                input_fn=input_fn, predict_keys=predict_keys, hooks=hooks,
                checkpoint_path=checkpoint_path, yield_single_examples=yield_single_examples)
        except Exception:
            _finished("prediction_loop")
            _reraising()
            raise
        except GeneratorExit:  # Closed before its end: the original logged once.
            _finished("prediction_loop")
            raise
        _finished("prediction_loop")
        _finished("prediction_loop")
