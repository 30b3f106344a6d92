"""Running a binary: flags parsed by absl, a user error is one line and an exit code.

absl's own runner answers a bad flag with two lines and a `UsageError` with the
whole usage text, and exits 1 after `--help`. Here a bad flag, a `UsageError`
or a data or download problem prints one line,

    estimator_lib.bin.train: error: flag --dataset=foo: value should be one of <...>

and exits 2 (bad flags and arguments) or 1 (the data or the download failed);
`--help` and `--helpfull` exit 0. Any other exception is a bug and keeps its
traceback.
"""

import sys
from typing import Callable, List, NoReturn, Optional, Sequence

from absl import app
from absl import flags as absl_flags

from estimator_lib.datasets.errors import BadDataError
from estimator_lib.datasets.errors import DownloadError

EXIT_FAILURE = 1
EXIT_USAGE = 2
# Failures of the data or the download: the user's to fix, not a bug.
DATA_ERRORS = (BadDataError, DownloadError)


def one_line(error: BaseException) -> str:
    """The error's message on one line (absl joins some with newlines)."""
    text = " ".join(part.strip() for part in str(error).splitlines() if part.strip())
    return text or type(error).__name__


def fail(program: str, message: str, exit_code: int = EXIT_USAGE) -> NoReturn:
    """Prints `PROGRAM: error: MESSAGE` to stderr and exits with `exit_code`."""
    sys.stdout.flush()
    sys.stderr.write(f"{program}: error: {message}\n")
    sys.stderr.flush()
    sys.exit(exit_code)


def declare_key_flags(holders: Sequence[absl_flags.FlagHolder]) -> None:
    """Makes `holders` the flags `--help` lists for the running binary.

    The flags are defined in flags/definitions.py, so absl would otherwise list
    none of them under `--help` (only under `--helpfull`).
    """
    for holder in holders:
        absl_flags.FLAGS.register_key_flag_for_module(sys.argv[0], absl_flags.FLAGS[holder.name])


def _make_parser(program: str) -> Callable[[List[str]], List[str]]:
    def parse(argv: List[str]) -> List[str]:
        try:
            return absl_flags.FLAGS(argv)
        except absl_flags.Error as error:
            fail(program, f"{one_line(error)} (--helpfull lists every flag)")
        except SystemExit as done:
            # Only the help flags exit while parsing; they printed what was asked.
            raise SystemExit(0) from done.__cause__
    return parse


def run(main: Callable[[List[str]], None], *, program: str,
        key_flags: Sequence[absl_flags.FlagHolder] = (),
        argv: Optional[List[str]] = None) -> None:
    """`app.run(main)`, with one-line errors and `--help` listing `key_flags`.

    `argv` defaults to sys.argv (tests pass their own).
    """
    declare_key_flags(key_flags)

    def guarded_main(argv: List[str]) -> None:
        try:
            main(argv)
        except app.UsageError as error:
            fail(program, one_line(error), EXIT_USAGE)
        except DATA_ERRORS as error:
            fail(program, one_line(error), EXIT_FAILURE)

    app.run(guarded_main, argv=argv, flags_parser=_make_parser(program))
