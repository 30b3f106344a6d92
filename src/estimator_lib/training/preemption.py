"""Stopping a training run cleanly on SIGTERM or SIGINT (pre-emption, Ctrl-C).

While `train_model` runs, the first SIGTERM or SIGINT asks the loop to stop after
the current step: the session closes normally, so the checkpoint hook writes a
checkpoint at that step and the model_dir lock is released. Then the signal does,
in the caller, what it would have done without us (`after_stop`):

- Python's own SIGINT handler: `Interrupted`, a KeyboardInterrupt, is raised (a
  script's `except KeyboardInterrupt:` runs; a notebook cell is interrupted);
- a handler the program installed: it is called, with the signal and its frame;
  if it returns, so does train();
- the default action (SIGTERM, or SIGINT set to SIG_DFL): `Preempted`, a
  SystemExit with status 128 + the signal (143, 130), as a process the signal
  killed, unless the caller catches it.

A second signal acts at once, as without us. An ignored signal (SIG_IGN, as a
background job's SIGINT) stays ignored. Handlers are installed only from the main
thread (Python allows no other; train() on another thread runs without them), and
the previous ones are back when train() returns or raises.
"""

import contextlib
import signal
import threading
from typing import Iterator, Optional

import tensorflow as tf

logging = tf.compat.v1.logging

SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _stopped_message(signum: int, step: Optional[int], model_dir: str) -> str:
    at = f"at step {step}" if step is not None else "before any checkpoint"
    return (f"Training stopped by {signal.Signals(signum).name}: checkpoint {at} written "
            f"in {model_dir}, model_dir lock released")


class Preempted(SystemExit):
    """Training stopped on a signal whose default action ends the process.

    Attributes:
        code: 128 + the signal number (SystemExit's exit status).
        signal_name: 'SIGTERM' or 'SIGINT'.
        step: The global step of the checkpoint written, or None.
        message: One line saying what happened.

    Args:
        signum: The signal's number.
        step: The global step of the checkpoint written, or None.
        model_dir: The Estimator's model_dir.
    """

    def __init__(self, signum: int, step: Optional[int], model_dir: str):
        self.signal_name, self.step = signal.Signals(signum).name, step
        self.message = (f"{_stopped_message(signum, step, model_dir)}; exiting with "
                        f"status {128 + signum}.")
        super().__init__(128 + signum)

    def __str__(self) -> str:
        return self.message


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped training after a checkpoint: Python's own KeyboardInterrupt.

    Attributes:
        code: 130, the status a shell reports for Ctrl-C (for command-line tools).
        signal_name: 'SIGINT'.
        step: The global step of the checkpoint written, or None.
        message: One line saying what happened.
    """

    def __init__(self, step: Optional[int], model_dir: str):
        self.signal_name, self.step = "SIGINT", step
        self.code = 128 + signal.SIGINT
        self.message = _stopped_message(signal.SIGINT, step, model_dir) + "."
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


def checkpoint_step(checkpoint: Optional[str]) -> Optional[int]:
    """The step in a checkpoint's name (`model.ckpt-1234`); Keras' hold no global_step key."""
    suffix = (checkpoint or "").rsplit("-", 1)[-1]
    return int(suffix) if suffix.isdigit() else None


class StopRequest:
    """Set by the first signal; read by the training loop before each step."""

    def __init__(self):
        self.signum: Optional[int] = None
        self.frame = None
        self.previous = {}  # signal -> the handler ours replaced

    @property
    def requested(self) -> bool:
        """Whether a handled signal has arrived (`signum` is set)."""
        return self.signum is not None


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StopRequest]:
    """Installs the SIGTERM/SIGINT handlers for one training run (main thread only)."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    # An ignored signal stays ignored: the program (or its parent) chose that.
    request.previous = {signum: signal.getsignal(signum) for signum in SIGNALS
                        if signal.getsignal(signum) is not signal.SIG_IGN}

    def restore():
        for signum, handler in request.previous.items():
            # None: a handler not installed from Python; the default is what we can put back.
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)

    def handle(signum, frame):
        if request.requested:  # The second signal: what it would have done without us.
            restore()
            signal.raise_signal(signum)
            return
        request.signum, request.frame = signum, frame
        logging.warning("Received %s: stopping after the current step and writing a "
                        "checkpoint; send it again to stop at once.",
                        signal.Signals(signum).name)

    for signum in request.previous:
        signal.signal(signum, handle)
    try:
        yield request
    finally:
        restore()


def after_stop(request: StopRequest, step: Optional[int], model_dir: str) -> None:
    """Once the checkpoint is written and the lock released: what the signal would have
    done without us (the module docstring lists the cases). Returns only when a handler
    the program installed returns.

    Args:
        request: The stop request the signal handler recorded.
        step: The global step of the checkpoint written, or None.
        model_dir: The Estimator's model_dir.

    Raises:
        Interrupted: SIGINT, whose handler was Python's own.
        Preempted: a signal whose handler was the default action.
    """
    handler = request.previous.get(request.signum)
    frame, request.frame = request.frame, None
    if handler is signal.default_int_handler:
        raise Interrupted(step, model_dir)
    if callable(handler):
        logging.info("%s; calling the program's own %s handler.",
                     _stopped_message(request.signum, step, model_dir),
                     signal.Signals(request.signum).name)
        handler(request.signum, frame)
        return
    raise Preempted(request.signum, step, model_dir)
