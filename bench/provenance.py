"""The line every benchmark table is printed under: command, commit, date, machine load.

    started = provenance.start()          # before the measurements
    ...
    print(provenance.line(started))       # after them, above the table
"""

import datetime
import os
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def commit() -> str:
    """The short HEAD commit, marked when tracked files differ from it."""
    def git(*args):
        return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True,
                              check=False).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" + uncommitted changes" if git("status", "--porcelain",
                                                     "--untracked-files=no") else "")


def command(argv=None) -> str:
    """How this process was started, as a command to paste."""
    argv = sys.argv if argv is None else argv
    script = os.path.relpath(os.path.abspath(argv[0]), REPO) if argv else "?"
    return shlex.join(["python", script, *argv[1:]])


def start(argv=None) -> dict:
    return {"command": command(argv), "commit": commit(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpus": os.cpu_count(), "load_before": os.getloadavg()[0]}


def line(started: dict) -> str:
    """`command` — commit, date, cores, load average before and now."""
    return (f"`{started['command']}` — commit {started['commit']}, {started['date']}, "
            f"{started['cpus']} CPU cores, load average {started['load_before']:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after")
