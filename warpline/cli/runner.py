"""How a tool becomes a subcommand: its flags, its flags-to-arguments, and one runner.

Each tool's CLI module offers a ``ToolCommand`` per endorsed name; ``warpline.cli.commands``
creates the subcommand the tool table (``warpline.registry``) names for it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from warpline.cli.output import EXIT_OK, emit_json, emit_text

Build = Callable[[argparse.Namespace], dict[str, Any]]
# The envelope for people (``--format table``, the default): lines, given the width.
View = Callable[[dict[str, Any], int], list[str]]


@dataclass(frozen=True, slots=True)
class ToolCommand:
    """How one tool's CLI command is built: its help, its own flags, its input, and how its
    envelope reads as a table."""
    help: str
    add_flags: Callable[[argparse.ArgumentParser], None]
    build: Build
    view: View
    listing: bool = True  # --sort-by/--sort-order/--limit/--cursor
    formats: tuple[str, ...] = ()  # --format choices beyond table and json


class Vocabulary(tuple[str, ...]):
    """A closed vocabulary as argparse ``choices``: listed in ``--help``, but a value outside
    it passes the parser and is rejected by the tool's input model, so a bad value answers
    with the same error code and field on the CLI as over MCP (``--change-kind bogus`` is
    ``invalid_filter`` at ``filters.change_kinds.0`` on both)."""

    __slots__ = ()

    def __contains__(self, value: object) -> bool:
        return True


def choices(vocabulary: Any) -> Vocabulary:
    """The CLI choices of a closed vocabulary (a ``Literal`` of ``warpline.models.vocab``)."""
    return Vocabulary(get_args(vocabulary))


def integer(text: str) -> int | str:
    """An integer flag's value; text that is no integer is passed on for the tool's input
    model to reject (``--depth abc`` is ``invalid_depth`` on both adapters)."""
    try:
        return int(text)
    except ValueError:
        return text


def put(target: dict[str, Any], key: str, value: Any) -> None:
    """Only what the user said goes into the arguments (so the echo matches MCP's)."""
    if value is not None and value != [] and value is not False:
        target[key] = value


def grouped(**values: Any) -> dict[str, Any] | None:
    """A nested argument object of what the user said (``put``'s rule); None when empty."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        put(out, key, value)
    return out or None


def listing(args: argparse.Namespace, out: dict[str, Any]) -> None:
    put(out, "sort_by", args.sort_by)
    put(out, "sort_order", args.sort_order)
    put(out, "limit", args.limit)
    put(out, "cursor", args.cursor)


def ref(value: str, kind: str | None) -> str | dict[str, str]:
    return value if kind in (None, "auto") else {"kind": kind, "value": value}


def tool_runner(tool: str, command: ToolCommand) -> Callable[[argparse.Namespace], int]:
    """The one way a subcommand calls a tool: build arguments, call, print (``--format``:
    table (the view), json, or a format of ``warpline.cli.formats``)."""
    def run(args: argparse.Namespace) -> int:
        from warpline.registry import call_tool

        result = call_tool(tool, command.build(args), cwd=Path.cwd())
        fmt = getattr(args, "format", None)
        if args.json or fmt == "json":
            emit_json(result)
        elif fmt in (None, "table"):
            from warpline.cli.views import render

            emit_text(render(command.view, result, getattr(args, "argv", None)))
        else:
            from warpline.cli.formats import WARNINGS_TO_STDERR, render_format

            text = render_format(tool, result, fmt)
            if fmt in WARNINGS_TO_STDERR:
                for warning in result.get("warnings", []):
                    print(f"warpline: warning: {warning}", file=sys.stderr)
            emit_text(text)
        return EXIT_OK

    return run
