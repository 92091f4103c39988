"""The ``warpline`` command: a thin adapter that parses flags, calls the service, prints.

Exit codes: 0 success, 1 bad input (the ``warpline.error.v1`` envelope is printed with
``--json``; a command line argparse rejects is bad input too), 70 internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from warpline import settings
from warpline.cli.output import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, emit_json, emit_text
from warpline.errors import InternalError, InvalidArgument, WarplineError

__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_OK", "emit_json", "emit_text", "main", "run"]


def run() -> NoReturn:
    """The console script and ``python -m warpline.cli``: ``main``, then the process ends
    without the interpreter's teardown (``warpline.exiting``)."""
    from warpline.exiting import exit_now

    exit_now(main())


def main(argv: Sequence[str] | None = None) -> int:
    from warpline.cli.commands import UsageError, build_parser

    words = list(argv) if argv is not None else sys.argv[1:]
    parser = build_parser(words)
    try:
        args = parser.parse_args(words)
    except (argparse.ArgumentError, UsageError) as exc:
        return _fail(usage_error(exc, words), "--json" in words, EXIT_BAD_INPUT)
    as_json = bool(getattr(args, "json", False))
    args.argv = words  # the command as typed: a `more:` line repeats it with --cursor
    try:
        _discover_repo(args)
        code: int = args.run(args)
        return code
    except WarplineError as exc:
        return _fail(exc, as_json, EXIT_INTERNAL if isinstance(exc, InternalError)
                     else EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        print("warpline: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if settings.debug():
            import traceback

            traceback.print_exc(file=sys.stderr)
        error = InternalError(f"Unexpected {type(exc).__name__}: {exc}. This is a warpline "
                              "defect; rerun with WARPLINE_DEBUG=1 for a traceback.")
        return _fail(error, as_json, EXIT_INTERNAL)


def usage_error(exc: Exception, words: Sequence[str]) -> WarplineError:
    """A rejected command line as ``invalid_argument``: the flag (as its argument name,
    ``--sort-order`` -> ``sort_order``), what argparse said, and where the flags are listed."""
    flag = getattr(exc, "argument_name", None)
    message = exc.message if isinstance(exc, argparse.ArgumentError) else str(exc)
    if flag is None and message.startswith(_REQUIRED):
        flag = message[len(_REQUIRED):].split(",")[0].strip()
    command = next((w for w in words if not w.startswith("-")), None)
    where = "warpline --help" if command is None or flag == "COMMAND" else (
        f"warpline {command} --help")
    return InvalidArgument(
        f"{message.rstrip('.')}. Fix the command line; `{where}` lists the accepted flags.",
        field=flag.lstrip("-").replace("-", "_").split("/")[0].lower() if flag else None,
        details={"usage": str(exc)})


_REQUIRED = "the following arguments are required: "
def _discover_repo(args: object) -> None:
    """``--repo .`` (the default) from a subdirectory means the enclosing work tree, as in
    git; the rest of warpline opens exactly the path it is given."""
    if getattr(args, "repo", None) != ".":
        return
    from warpline.git.repo import discover_top

    top = discover_top(os.getcwd())
    if top is not None and os.path.realpath(top) != os.path.realpath(os.getcwd()):
        args.repo = top  # type: ignore[attr-defined]


def _fail(exc: WarplineError, as_json: bool, code: int) -> int:
    payload = exc.to_payload()
    if as_json:
        emit_json(payload)
    field = f" (field `{exc.field}`)" if exc.field else ""
    print(f"Error: {exc.code}{field}: {exc.hint}", file=sys.stderr)
    return code
