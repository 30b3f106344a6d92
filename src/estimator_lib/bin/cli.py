"""Running a binary: flags parsed by absl, a user error is one line and an exit code.

absl's own runner answers a bad flag with two lines and a `UsageError` with the
whole usage text, and exits 1 after `--help`. Here a bad flag, a `UsageError`
or a data or download problem prints one line,

    estimator_lib.bin.train: error: flag --dataset=foo: value should be one of <...>

and exits 2 when the command line is wrong (a bad, missing or conflicting flag, a
positional argument, a --data_dir that does not exist, more devices than the
machine has) or 1 when what it names failed (bad data, a download, a model_dir in
use or not writable); `--help` and `--helpfull` exit 0. A flag of another binary
(`train --devices=4`) is refused naming the binary that has it. Flags are parsed,
and --help, a flag error and the mistakes a binary's `check` finds without
TensorFlow answered, before TensorFlow loads: a binary imports TensorFlow (through
the library) inside its main. TensorFlow's C++ start-up lines, and the failed cuInit
of a machine without a GPU, are hidden (core/quiet_start.py; TF_CPP_MIN_LOG_LEVEL=2)
unless the environment sets that variable or --verbosity is 1 or more. SIGTERM or Ctrl-C during training stops after a step
with a checkpoint (estimator_lib/training/preemption.py) and one line; exit 143 or
130. Any other exception is a bug and keeps its traceback.
"""

import importlib
import os
import re
import sys
import types
from typing import Callable, Dict, List, NoReturn, Optional, Sequence, Tuple

from absl import app
from absl import flags as absl_flags

from estimator_lib.bin.jobs import device_count  # None of these loads TensorFlow.
from estimator_lib.core import quiet_start
from estimator_lib.core import user_errors
from estimator_lib.flags import definitions as defs
from estimator_lib.training import lock_owner

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C.
BINARIES = ("train", "scaling_benchmark", "input_benchmark", "download_oct", "make_tfrecords")
# Failures that are the user's to fix, not bugs (core/user_errors.py, shared with the
# legacy-program runner).
USER_ERRORS = user_errors.USER_ERRORS
PREEMPTED = user_errors.PREEMPTED
INTERRUPTED = user_errors.INTERRUPTED
# datasets/errors.py's REMEDIES (as a Python caller writes them) -> what a binary's
# user types. Kept here, not imported: datasets/ loads TensorFlow.
COMMAND_LINE_REMEDIES = {
    "Pass on_bad_file='skip'": "Pass --on_bad_file=skip",
    "download_oct(data_dir)": "python -m estimator_lib.bin.download_oct --data_dir={data_dir} "
                              "(add --synthetic_sample for a small offline sample)",
    "synthetic_data=True": "--dataset=synthetic",
    "convert_folder_to_tfrecords(image_folder, output_dir)":
        "python -m estimator_lib.bin.make_tfrecords --data_dir=IMAGES --output_dir={data_dir}",
}
# What a --data_dir must hold, for the message when it is missing or not a folder.
EXPECT_IMAGES = ("a folder of CLASS/*.jpeg images or an OCT2017 download (python -m "
                 "estimator_lib.bin.download_oct --data_dir=DIR --synthetic_sample writes a "
                 "small one)")
EXPECT_TFRECORDS = ("a folder of TFRecords (python -m estimator_lib.bin.make_tfrecords "
                    "--data_dir=IMAGES --output_dir=DIR writes one)")
EXPECT_FASHION_MNIST = ("a folder for Fashion-MNIST's files (create it, and they are "
                        "downloaded into it; --dataset=synthetic needs none)")


class UserError(Exception):
    """A failure the user fixes, found before TensorFlow loads: one line, exit 1."""


class _LazyModule(types.ModuleType):
    """Stands for a module until an attribute is first read, then imports it."""

    def __getattr__(self, attribute: str):
        module = importlib.import_module(self.__name__)
        self.__dict__.update(vars(module))
        return getattr(module, attribute)


def lazy_module(name: str) -> types.ModuleType:
    """Returns module `name`, imported when first used (after flag parsing, in main).

    A binary names the modules that load TensorFlow this way at its top, so that
    --help and flag errors are answered in a fraction of a second.
    """
    return sys.modules.get(name) or _LazyModule(name)


def one_line(error: BaseException) -> str:
    """Returns the error's message on one line (absl joins some with newlines)."""
    return user_errors.one_line(error)


def fail(program: str, message: str, exit_code: int = EXIT_USAGE) -> NoReturn:
    """Prints `PROGRAM: error: MESSAGE` to stderr and exits with `exit_code`.

    Args:
        program: The binary's name, as error lines start with it.
        message: What went wrong, one line.
        exit_code: The process's exit status.

    Raises:
        SystemExit: Always, with `exit_code`.
    """
    sys.stdout.flush()
    sys.stderr.write(f"{program}: error: {message}\n")
    sys.stderr.flush()
    sys.exit(exit_code)


def for_the_command_line(message: str) -> str:
    """Rewrites `message`: each remedy a Python caller would use becomes its flag or command.

    datasets/ names remedies as arguments (`Pass on_bad_file='skip'`); a user of a
    binary needs the flag (`Pass --on_bad_file=skip`). errors.REMEDIES lists them.
    """
    data_dir = absl_flags.FLAGS["data_dir"].value or "DIR"
    for python, command_line in COMMAND_LINE_REMEDIES.items():
        message = message.replace(python, command_line.format(data_dir=data_dir))
    return message


def declare_key_flags(holders: Sequence[absl_flags.FlagHolder]) -> None:
    """Makes `holders` the flags `--help` lists for the running binary.

    The flags are defined in flags/definitions.py, so absl would otherwise list
    none of them under `--help` (only under `--helpfull`).
    """
    for holder in holders:
        absl_flags.FLAGS.register_key_flag_for_module(sys.argv[0], absl_flags.FLAGS[holder.name])


def flag_owners() -> Dict[str, Tuple[str, ...]]:
    """Maps each flag name to the binaries that read it, from each binary's KEY_FLAGS."""
    owners: Dict[str, Tuple[str, ...]] = {}
    for binary in BINARIES:
        module = importlib.import_module(f"estimator_lib.bin.{binary}")
        for holder in module.KEY_FLAGS:
            owners[holder.name] = owners.get(holder.name, ()) + (f"estimator_lib.bin.{binary}",)
    return owners


def _aliases() -> Dict[str, str]:
    """Alias flag name -> the flag it sets (`--num_gpus` -> `num_devices`)."""
    return {"num_gpus": defs.NUM_DEVICES.name}


def foreign_flags(key_flags: Sequence[absl_flags.FlagHolder]) -> List[str]:
    """Flags of flags/definitions.py given on the command line that the binary does not read.

    Names as typed: an alias given (`--num_gpus`) is named rather than its flag.
    """
    own = {holder.name for holder in key_flags}
    aliases = _aliases()
    ours = {flag.name for flag in absl_flags.FLAGS.get_flags_for_module(defs.__name__)}
    given = {name for name in ours | set(aliases)
             if name in absl_flags.FLAGS and absl_flags.FLAGS[name].present}
    given -= {aliases[name] for name in given if name in aliases}
    return sorted(name for name in given if aliases.get(name, name) not in own)


def _refuse_foreign_flags(program: str, key_flags: Sequence[absl_flags.FlagHolder]) -> None:
    foreign = foreign_flags(key_flags)
    if not foreign:
        return
    owners = flag_owners()
    parts = []
    for name in foreign:
        where = owners.get(_aliases().get(name, name), ())
        owner = f"a flag of {' and '.join(where)}" if where else "no binary reads it"
        parts.append(f"--{name} ({owner})")
    fail(program, f"{program} does not take {', '.join(parts)}; "
                  f"--help lists the flags it takes.")


def refuse_arguments(argv: Sequence[str]) -> None:
    """Raises UsageError for positional arguments (every binary takes flags only).

    Args:
        argv: The command line absl left after reading the flags.

    Raises:
        app.UsageError: If anything but the program name remains.

    Examples:
        >>> refuse_arguments(["train"])
        >>> refuse_arguments(["train", "extra"])
        Traceback (most recent call last):
        ...
        absl.app.UsageError: Unexpected arguments: extra (flags are --name=value).
    """
    if len(argv) > 1:
        raise app.UsageError(
            f"Unexpected arguments: {' '.join(argv[1:])} (flags are --name=value).")


def require_dir(holder: absl_flags.FlagHolder, what: str) -> str:
    """Returns the folder flag `holder`'s value; UsageError when unset (`what` says what it is)."""
    if not holder.value:
        raise app.UsageError(f"--{holder.name} is required: {what}.")
    return holder.value


def check_dir_exists(holder: absl_flags.FlagHolder, expected: str) -> None:
    """Raises UsageError when the folder flag `holder` names a local path that is not a folder.

    The message says what the path is (missing, or a file) and what was `expected`
    (one of the EXPECT_* phrases: the layout and the command that writes one).
    """
    message = not_a_folder(holder.name, holder.value, expected)
    if message:
        raise app.UsageError(message)


def not_a_folder(name: str, value: Optional[str], expected: str) -> Optional[str]:
    """Says what is wrong with the local path --`name`=`value` as a folder, or None if it is one.

    Args:
        name: The flag's name.
        value: The flag's value (a path), or None.
        expected: What the folder should hold, for the message.

    Returns:
        One line saying what is wrong, or None.
    """
    if not value or "://" in value or os.path.isdir(value):
        return None
    what = "is a file, not a folder" if os.path.exists(value) else "does not exist"
    return f"--{name}={value} {what}; expected {expected}."


def check_device_count(count: int, asked: Optional[str] = None) -> None:
    """Raises UsageError when `count` devices are more than a machine without a GPU can give.

    Checked before TensorFlow loads only where no NVIDIA device file exists (then
    TensorFlow sees no GPU); with one, the job checks against TensorFlow's count.
    """
    if quiet_start.nvidia_devices_present():
        return
    try:
        device_count.check_count(count, gpus=0, asked=asked)
    except ValueError as error:
        raise app.UsageError(str(error)) from None


def check_model_dir_free(model_dir: Optional[str]) -> None:
    """Exits 1 when a live training holds `model_dir`'s lock (training/lock_owner.py)."""
    message = lock_owner.live_owner_message(model_dir)
    if message:
        raise UserError(message)


_BAD_VALUE = re.compile(r"^flag --(\w+)=(.*?): (invalid literal for (int|float)\(\).*|could "
                        r"not convert string to float.*)$")
_WANTS = {"int": "an integer", "float": "a number"}


def bad_value_message(error: Exception) -> str:
    """Returns a flag parsing error on one line, naming the type a number flag wants.

    Args:
        error: What absl raised while parsing the flags.

    Returns:
        For a number flag given text (`--batch_size=abc`), `flag --batch_size=abc:
        --batch_size wants an integer, not 'abc'`, in place of Python's `invalid
        literal for int()`; any other error's own message, on one line.

    Examples:
        >>> bad_value_message(absl_flags.IllegalFlagValueError(
        ...     "flag --batch_size=abc: invalid literal for int() with base 10: 'abc'"))
        "flag --batch_size=abc: --batch_size wants an integer, not 'abc'"
        >>> bad_value_message(absl_flags.IllegalFlagValueError("flag --x=1: too small"))
        'flag --x=1: too small'
    """
    text = one_line(error)
    match = _BAD_VALUE.match(text)
    if not match:
        return text
    name, value = match.group(1), match.group(2)
    kind = _WANTS[match.group(4) or "float"]
    return f"flag --{name}={value}: --{name} wants {kind}, not {value!r}"


def _make_parser(program: str,
                 key_flags: Sequence[absl_flags.FlagHolder]) -> Callable[[List[str]], List[str]]:
    def parse(argv: List[str]) -> List[str]:
        try:
            remaining = absl_flags.FLAGS(argv)
        except absl_flags.Error as error:
            fail(program, f"{bad_value_message(error)} (--helpfull lists every flag)")
        except SystemExit as done:
            # Only the help flags exit while parsing; they printed what was asked.
            raise SystemExit(0) from done.__cause__
        _refuse_foreign_flags(program, key_flags)
        return remaining
    return parse


_loaded = user_errors.loaded


def run(main: Callable[[List[str]], None], *, program: str,
        key_flags: Sequence[absl_flags.FlagHolder] = (),
        argv: Optional[List[str]] = None,
        check: Optional[Callable[[], None]] = None) -> None:
    """Runs `app.run(main)`, with one-line errors, `--help` listing `key_flags`, and only them.

    Before TensorFlow loads: positional arguments are refused and `check` (the
    binary's own checks of its flags, raising `app.UsageError` or `UserError`) runs,
    so that those mistakes are answered in a fraction of a second.
    `argv` defaults to sys.argv (tests pass their own).

    Args:
        main: The binary's `main(argv)`.
        program: The binary's name, as error lines start with it.
        key_flags: The flags `--help` lists (the binary's own).
        argv: The command line; None takes `sys.argv`.
        check: The binary's own checks of its flags, or None.
    """
    declare_key_flags(key_flags)

    def guarded_main(argv: List[str]) -> None:
        try:
            refuse_arguments(argv)
            if check is not None:
                check()
            quiet_start.load_tensorflow(verbose=absl_flags.FLAGS["verbosity"].value >= 1)
            main(argv)
        except app.UsageError as error:
            fail(program, for_the_command_line(one_line(error)), EXIT_USAGE)
        except KeyboardInterrupt as error:
            if not isinstance(error, _loaded([INTERRUPTED])):
                fail(program, "interrupted (Ctrl-C).", EXIT_INTERRUPTED)
            sys.stdout.flush()  # Training stopped after a checkpoint: its one line.
            sys.stderr.write(f"{program}: {error}\n")
            sys.stderr.flush()
            sys.exit(EXIT_INTERRUPTED)
        except BaseException as error:  # pylint: disable=broad-except
            if isinstance(error, _loaded([PREEMPTED])):
                sys.stdout.flush()
                sys.stderr.write(f"{program}: {error}\n")
                sys.stderr.flush()
                sys.exit(error.code)
            if isinstance(error, (UserError,) + _loaded(USER_ERRORS)):
                fail(program, for_the_command_line(one_line(error)), EXIT_FAILURE)
            raise

    app.run(guarded_main, argv=argv, flags_parser=_make_parser(program, key_flags))
