"""The ``warpline`` command: a thin adapter that parses flags, calls the service, prints.

Exit codes: 0 success, 1 bad input (the ``warpline.error.v1`` envelope is printed),
70 internal error.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Sequence
from typing import Any

from warpline.errors import InternalError, WarplineError

EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_INTERNAL = 70


def main(argv: Sequence[str] | None = None) -> int:
    from warpline.cli.commands import build_parser

    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    as_json = bool(getattr(args, "json", False))
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
        if os.environ.get("WARPLINE_DEBUG"):
            traceback.print_exc(file=sys.stderr)
        error = InternalError(f"Unexpected {type(exc).__name__}: {exc}. This is a warpline "
                              "defect; rerun with WARPLINE_DEBUG=1 for a traceback.")
        return _fail(error, as_json, EXIT_INTERNAL)


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


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=False) + "\n")
    sys.stdout.flush()


def emit_text(text: str) -> None:
    sys.stdout.write(text.rstrip("\n") + "\n")
    sys.stdout.flush()
