"""The CLI's subcommands: flags in, a tool's arguments out. No tool semantics live here.

Every row of the tool table (``warpline.registry.TOOLS``) becomes the subcommand it names;
each tool's flags come from the ``ToolCommand`` its CLI module offers (a row without one is
an error the meta-test catches). Commands that are not tools (backfill, install, ...) come
from the extension modules.
"""

from __future__ import annotations

import argparse
import importlib
from typing import TYPE_CHECKING, Any

from warpline._version import __version__

if TYPE_CHECKING:
    from collections.abc import Sequence

    from warpline.cli.runner import ToolCommand


def common(p: argparse.ArgumentParser, listing: bool = True) -> None:
    p.add_argument("--repo", default=".", help="path of the git repository (default: .)")
    p.add_argument("--json", action="store_true", help="print the JSON envelope")
    if listing:
        from warpline.cli.runner import choices
        from warpline.models.vocab import SortOrder

        p.add_argument("--sort-by", dest="sort_by")
        p.add_argument("--sort-order", dest="sort_order", choices=choices(SortOrder))
        p.add_argument("--limit", type=int)  # argparse and MCP both: invalid_argument, limit
        p.add_argument("--cursor", help="the next_cursor of a previous page")


def tool_commands() -> dict[str, ToolCommand]:
    """Every tool's flags, by endorsed name."""
    from warpline.cli import admin_cmds, graph_cmds, history_cmds

    return {**history_cmds.COMMANDS, **graph_cmds.COMMANDS, **admin_cmds.COMMANDS}


class UsageError(Exception):
    """A command line argparse rejects (raised instead of argparse's exit 2)."""


class Parser(argparse.ArgumentParser):
    """argparse, but a bad command line raises (``main`` answers it with the envelope)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["exit_on_error"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:  # argparse's NoReturn hook
        raise UsageError(message)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given ``argv`` naming a command that is not a tool (``backfill``,
    ``doctor``, ...) or only ``--version``, the tool subcommands are left out: building
    them imports the tool table and its models, which those commands never need."""
    parser = Parser(
        prog="warpline",
        description="Which code entities changed, what depends on them, what to re-verify.")
    parser.add_argument("--version", action="version", version=f"warpline {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    words = list(argv) if argv is not None else []
    first = next((w for w in words if not w.startswith("-")), None)
    own = PLAIN_COMMANDS.get(first) if argv is not None and first is not None else None
    if own is not None:  # one command that is not a tool: only its module's parsers
        importlib.import_module(own).add_parsers(sub, common)
        return parser
    plain = argparse.ArgumentParser(add_help=False).add_subparsers()
    for name in _EXTENSIONS:
        importlib.import_module(name).add_parsers(plain, common)
    version_only = first is None and "--version" in words and not {"-h", "--help"} & set(words)
    if argv is None or not (first in plain.choices or version_only):
        _add_tool_commands(sub)
    for name in _EXTENSIONS:
        importlib.import_module(name).add_parsers(sub, common)
    return parser


def _add_tool_commands(sub: Any) -> None:
    from warpline.cli.runner import tool_runner
    from warpline.registry import TOOLS

    commands = tool_commands()
    for spec in TOOLS:
        command = commands[spec.endorsed]
        p = sub.add_parser(spec.cli_command, help=command.help)
        command.add_flags(p)
        if command.formats:
            p.add_argument("--format", choices=("table", "json", *command.formats))
        common(p, listing=command.listing)
        p.set_defaults(run=tool_runner(spec.endorsed, command), tool=spec.endorsed)


# The module that registers each command that is not a tool, so that one of them (a hook's
# ``hook-ingest``, ``ingest-commit``, ``backfill``) imports and builds only its own parsers
# (tests/test_startup_imports.py checks this map against what the modules register).
PLAIN_COMMANDS: dict[str, str] = {
    "backfill": "warpline.cli.ingest", "ingest-commit": "warpline.cli.ingest",
    "mcp-smoke": "warpline.cli.smoke",
    "install": "warpline.cli.setup_cmds", "doctor": "warpline.cli.setup_cmds",
    "session-context": "warpline.cli.setup_cmds", "hook-ingest": "warpline.cli.setup_cmds",
    "sync": "warpline.cli.sync_cmds", "ci": "warpline.cli.ci_cmds",
    "import-coverage": "warpline.cli.testmap_cmds",
    "record-tests": "warpline.cli.testrun_cmds", "run-tests": "warpline.cli.testrun_cmds",
}

# Subcommand groups that are not tools; each module offers
# ``add_parsers(subparsers, common)`` and keeps its own flags-to-arguments code.
_EXTENSIONS: tuple[str, ...] = (
    "warpline.cli.ingest",
    "warpline.cli.smoke",
    "warpline.cli.setup_cmds",
    "warpline.cli.sync_cmds",
    "warpline.cli.ci_cmds",
    "warpline.cli.testmap_cmds",
    "warpline.cli.testrun_cmds",
)
