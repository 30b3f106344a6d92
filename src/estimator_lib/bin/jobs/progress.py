"""A progress display for long loops: done/total, rate and time left.

On a terminal it rewrites one line; otherwise (a log file, a pipe) it prints a
line each time another tenth is done, and at the end. It is the
`progress(done, total)` callback that datasets/ functions take.
"""

import sys
import time
from typing import Callable, Optional, TextIO

Clock = Callable[[], float]


def duration(seconds: float) -> str:
    """Formats seconds as `0:43`, `12:05` or `1:02:03` (hours only when there are any)."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class ProgressDisplay:
    """Shows `label [#####-----] 50% 500/1,000 images, 120/s, 0:04 left`.

    Args:
        label: What is being counted, shown first.
        unit: The items' name (`images`).
        stream: Where to write; None for stdout.
        clock: The clock (for tests).
        width: The bar's width, in characters.
        interactive: Whether to redraw one line (a terminal); None asks the stream.
    """

    def __init__(self, label: str, *, unit: str = "images", stream: Optional[TextIO] = None,
                 clock: Clock = time.monotonic, width: int = 24,
                 interactive: Optional[bool] = None):
        self._label = label
        self._unit = unit
        self._stream = stream or sys.stdout
        self._clock = clock
        self._width = width
        self._interactive = (interactive if interactive is not None
                             else getattr(self._stream, "isatty", lambda: False)())
        self._start = clock()
        self._last_tenth = -1
        self._open_line = False

    def line(self, done: int, total: int) -> str:
        """Returns the text shown for `done` of `total`."""
        now = self._clock()
        fraction = done / total if total else 1.0
        filled = int(self._width * fraction)
        elapsed = max(now - self._start, 1e-9)
        rate = done / elapsed
        left = (total - done) / rate if done and rate > 0 else None
        tail = (f", {duration(left)} left" if left is not None and done < total else
                f", {duration(elapsed)}" if done >= total else "")
        return (f"{self._label} [{'#' * filled}{'-' * (self._width - filled)}] "
                f"{fraction:4.0%} {done:,}/{total:,} {self._unit}, {rate:,.0f}/s{tail}")

    def __call__(self, done: int, total: int) -> None:
        text = self.line(done, total)
        if self._interactive:
            self._stream.write("\r" + text + ("\n" if done >= total else ""))
            self._open_line = done < total
        else:
            tenth = int(10 * done / total) if total else 10
            if tenth == self._last_tenth and done < total:
                return
            self._last_tenth = tenth
            self._stream.write(text + "\n")
        self._stream.flush()

    def close(self) -> None:
        """Ends a line left open on a terminal (e.g. after an error)."""
        if self._open_line:
            self._stream.write("\n")
            self._stream.flush()
            self._open_line = False
