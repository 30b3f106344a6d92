"""Stopping a training run cleanly on SIGTERM or SIGINT (pre-emption, Ctrl-C).

While `train_model` runs, the first SIGTERM or SIGINT asks the loop to stop after
the current step: the session closes normally, so the checkpoint hook writes a
checkpoint at that step and the model_dir lock is released; then `Preempted`
(a SystemExit with status 128 + the signal, 143 or 130, as a process killed by the
signal) ends the program unless the caller catches it. After SIGINT it is also a
KeyboardInterrupt (`Interrupted`), as the original's Ctrl-C raised one: a program
that catches KeyboardInterrupt around train() still does. A second signal ends the
process at once, as without us. Handlers are installed only from the main thread
(Python allows no other) and the previous ones are put back when training ends.
"""

import contextlib
import signal
import threading
from typing import Iterator, Optional

import tensorflow as tf

logging = tf.compat.v1.logging

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Preempted(SystemExit):
    """Training stopped on a signal after writing a checkpoint.

    Attributes:
        code: 128 + the signal number (SystemExit's exit status).
        signal_name: 'SIGTERM' or 'SIGINT'.
        step: The global step of the checkpoint written, or None.
        message: One line saying what happened.
    """

    def __new__(cls, signum: int, *args, **kwargs):
        if cls is Preempted and signum == signal.SIGINT:
            cls = Interrupted
        return super().__new__(cls, signum, *args, **kwargs)

    def __init__(self, signum: int, step: Optional[int], model_dir: str):
        name = signal.Signals(signum).name
        at = f"at step {step}" if step is not None else "before any checkpoint"
        self.signal_name, self.step = name, step
        self.message = (f"Training stopped by {name}: checkpoint {at} written in "
                        f"{model_dir}, model_dir lock released; exiting with status "
                        f"{128 + signum}.")
        super().__init__(128 + signum)

    def __str__(self) -> str:
        return self.message


class Interrupted(Preempted, KeyboardInterrupt):
    """Preempted by SIGINT: also a KeyboardInterrupt, the error Ctrl-C raised in the
    original (which raised it mid-step, without a checkpoint)."""


def checkpoint_step(checkpoint: Optional[str]) -> Optional[int]:
    """The step in a checkpoint's name (`model.ckpt-1234`); Keras' hold no global_step key."""
    suffix = (checkpoint or "").rsplit("-", 1)[-1]
    return int(suffix) if suffix.isdigit() else None


class StopRequest:
    """Set by the first signal; read by the training loop before each step."""

    def __init__(self):
        self.signum: Optional[int] = None

    @property
    def requested(self) -> bool:
        return self.signum is not None


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StopRequest]:
    """Installs the SIGTERM/SIGINT handlers for one training run (main thread only)."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    previous = {signum: signal.getsignal(signum) for signum in SIGNALS}

    def restore():
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)

    def handle(signum, frame):  # pylint: disable=unused-argument
        if request.requested:  # The second signal: what it would have done without us.
            restore()
            signal.raise_signal(signum)
            return
        request.signum = signum
        logging.warning("Received %s: stopping after the current step and writing a "
                        "checkpoint; send it again to stop at once.",
                        signal.Signals(signum).name)

    for signum in SIGNALS:
        signal.signal(signum, handle)
    try:
        yield request
    finally:
        restore()
