"""``hermes-memory``: the engine's command-line front.

Each feature area registers its own sub-commands from a small ``commands`` module listed
in :data:`COMMAND_MODULES`; this file only owns the shared options, the home resolution
and the exit-code convention: 0 success, 1 the engine refused, 2 usage errors.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, TextIO

from . import __version__
from .fileio import read_regular_bytes
from .home import HermesHome, HomeError

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2

#: The most a command reads from standard input (no store or batch is anywhere near it).
MAX_INPUT_BYTES = 4 * 1024 * 1024


class InputError(Exception):
    """Input a command cannot use (standard input too large, not UTF-8); exit 1."""


class FileArgumentError(InputError):
    """A FILE argument that cannot be read (missing, special, not UTF-8): a usage error, exit 2."""

#: Modules exposing ``register(subparsers)``; each sub-command sets ``handler=fn`` where
#: ``fn(args, ctx: CliContext) -> int``.
COMMAND_MODULES = (
    "hermes_memory.memory.commands",
    "hermes_memory.memory.consolidate_commands",
    "hermes_memory.sessions.commands",
    "hermes_memory.providers.commands",
    "hermes_memory.skills.commands",
    "hermes_memory.learning.commands",
    "hermes_memory.review.commands",
    "hermes_memory.pending.commands",
    "hermes_memory.history.commands",
    "hermes_memory.remote.commands",
)


@dataclass
class CliContext:
    """What every command handler needs: the resolved home and how to print."""

    home: HermesHome
    json: bool
    stdout: TextIO
    stderr: TextIO

    def print(self, text: str = "") -> None:
        print(text, file=self.stdout)

    def print_json(self, payload: Any) -> None:
        print(json.dumps(payload, ensure_ascii=False), file=self.stdout)

    def error(self, message: str, code: int = EXIT_REFUSED) -> int:
        print(f"hermes-memory: {message}", file=self.stderr)
        return code

    def read_argument(self, value: str) -> str:
        """A command argument, where ``-`` means "read standard input"."""
        return read_stdin() if value == "-" else value

    def read_file_argument(self, value: str) -> str:
        """The UTF-8 text of a FILE argument (``-``: standard input), bounded like stdin:
        a regular file only, since a FIFO or a device would hang or never end."""
        if value == "-":
            return read_stdin()
        try:
            data = read_regular_bytes(value, MAX_INPUT_BYTES)
        except OSError as exc:
            raise FileArgumentError(f"cannot read {value}: {exc.strerror or exc}") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FileArgumentError(f"{value} is not UTF-8 text (bad byte at offset {exc.start})") from None


def read_stdin(limit: int = MAX_INPUT_BYTES) -> str:
    """Standard input as UTF-8 text, at most ``limit`` bytes (``/dev/zero`` must not fill
    the memory); :class:`InputError` otherwise."""
    stream = sys.stdin
    if stream is None:
        raise InputError("standard input is closed; pass the text as an argument instead")
    binary = getattr(stream, "buffer", None)
    data = binary.read(limit + 1) if binary is not None else stream.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"standard input is over {limit:,} bytes; nothing was read or written")
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"standard input is not UTF-8 text (bad byte at offset {exc.start}); nothing "
            "was written"
        ) from None


def _forgiving_output(stream: TextIO) -> None:
    """Print any text, even lone surrogates from undecodable arguments, as escapes rather
    than fail with UnicodeEncodeError mid-command."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        stream.reconfigure(errors="backslashreplace")


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    """argparse type: a number greater than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Accept ``--json`` after a sub-command too; it sets the same flag as the global one."""
    parser.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable JSON output"
    )


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors exit 2 with a hint, as argparse does
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\nTry '{self.prog} --help'.\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hermes-memory",
        description="Read and curate a Hermes agent's memory, skills and history.",
    )
    parser.add_argument("--home", metavar="PATH", help="Hermes home (default: $HERMES_HOME or ~/.hermes)")
    parser.add_argument("--profile", metavar="NAME", help="use the named profile under the home")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    _json_flag_everywhere(subparsers)
    return parser


_PARSERS: dict[tuple[str, ...], argparse.ArgumentParser] = {}
_PARSERS_LOCK = threading.Lock()


def cached_parser() -> argparse.ArgumentParser:
    """The parser, built once per process for the current :data:`COMMAND_MODULES`
    (building it costs more than most commands): parsing never changes a parser, and
    help, usage errors and ``--version`` still print through ``sys.stdout``/``sys.stderr``
    of the moment, as a fresh one would."""
    key = tuple(COMMAND_MODULES)
    parser = _PARSERS.get(key)
    if parser is None:
        with _PARSERS_LOCK:
            parser = _PARSERS.get(key)
            if parser is None:
                parser = _PARSERS[key] = build_parser()
    return parser


def _json_flag_everywhere(subparsers: argparse._SubParsersAction) -> None:
    """Let ``--json`` follow any sub-command (``graph --json``), not only come first."""
    for command in set(subparsers.choices.values()):
        if "--json" not in command._option_string_actions:
            add_json_flag(command)
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _json_flag_everywhere(action)


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    for stream in (stdout, stderr):
        _forgiving_output(stream)
    try:
        args = cached_parser().parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    home_text = args.home or os.environ.get("HERMES_HOME", "")
    if home_text[:6].lower() == "ssh://":  # a home on another machine: run the command there
        from .remote.ssh import run_remote_cli

        return run_remote_cli(home_text, sys.argv[1:] if argv is None else argv, stdout, stderr)
    try:
        home = HermesHome.resolve(args.home, args.profile)
    except HomeError as exc:
        print(f"hermes-memory: {exc}", file=stderr)
        return EXIT_USAGE
    ctx = CliContext(home=home, json=args.json, stdout=stdout, stderr=stderr)
    try:
        return args.handler(args, ctx)
    except FileArgumentError as exc:
        return ctx.error(str(exc), EXIT_USAGE)
    except (HomeError, InputError) as exc:
        return ctx.error(str(exc), EXIT_REFUSED)
    except KeyboardInterrupt:
        return ctx.error("interrupted", 130)
    except BrokenPipeError:
        # Output piped into e.g. `head`, which stopped reading: not an error of ours.
        # Point stdout at devnull so the interpreter's final flush stays quiet.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # an input nobody foresaw: a message, never a traceback
        if os.environ.get("HERMES_MEMORY_DEBUG"):
            raise
        return ctx.error(
            f"unexpected error ({type(exc).__name__}: {exc}); the command stopped. Set "
            "HERMES_MEMORY_DEBUG=1 to see where, and please report it.",
            EXIT_REFUSED,
        )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
