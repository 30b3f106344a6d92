"""What a benchmark binary's table says of itself: when it ran, and on which code."""

import datetime
import os
import subprocess


def source() -> str:
    """Names the estimator_lib that ran: its git commit when run from a checkout (marked
    when tracked files differ from it), else its installed version."""
    here = os.path.dirname(os.path.abspath(__file__))

    def git(*args):
        try:
            return subprocess.run(["git", "-C", here, *args], capture_output=True, text=True,
                                  check=False, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    head = git("rev-parse", "--short", "HEAD")
    if not head:
        from importlib import metadata  # pylint: disable=import-outside-toplevel
        try:
            return f"estimator_lib {metadata.version('estimator_lib')}"
        except metadata.PackageNotFoundError:
            return "estimator_lib (version unknown)"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"commit {head}" + (" + uncommitted changes" if dirty else "")


def stamp() -> str:
    """Returns the time now and `source()`: '2026-11-25 14:28 UTC, commit 6f97e51'."""
    return f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}, {source()}"
