"""Completeness: every row of the tool table is built, wired, documented and tested.

The table (``warpline.registry.TOOLS``) is the one place a tool is declared; these tests
walk it and fail when a row misses a piece: its contracts, its vocabulary entry, its
handler, its CLI subcommand, its README row, its parity case.
"""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest

from tests.test_parity import CASES
from warpline import models
from warpline.cli.commands import build_parser, tool_commands
from warpline.contracts_io import load_contract
from warpline.models.vocab import (
    CaptureMode,
    ChangeKind,
    EdgeKind,
    EntityKind,
    EntityRefKind,
    GroupBy,
    Reason,
    SortOrder,
    ToolName,
    VerificationState,
)
from warpline.registry import TOOLS, ToolSpec, inventory_document
from warpline.tooldocs import DOCS_PAGE, docs_page, markdown_table

ROOT = Path(__file__).resolve().parent.parent


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse offers no public walk of its subparsers
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the warpline parser has no subcommands")


SUBCOMMANDS = _subcommands(build_parser())


def test_the_vocabulary_names_exactly_the_tools_of_the_table() -> None:
    assert [spec.endorsed for spec in TOOLS] == list(get_args(ToolName))


def test_names_and_commands_are_unique() -> None:
    names = [name for spec in TOOLS for name in spec.names]
    commands = [spec.cli_command for spec in TOOLS]
    assert len(names) == len(set(names))
    assert len(commands) == len(set(commands))


def test_the_inventory_file_is_the_table() -> None:
    assert load_contract("tools.json") == inventory_document()


def test_every_cli_tool_command_belongs_to_a_row() -> None:
    assert set(tool_commands()) == {spec.endorsed for spec in TOOLS}


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.shim)
def test_every_row_has_contracts_matching_its_models(tool: ToolSpec[Any]) -> None:
    assert tool.input_schema()["type"] == "object"
    assert tool.output_schema()["properties"]["schema"]["const"] == tool.schema_id
    assert tool.output_schema_file == f"{tool.schema_id}.json"


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.shim)
def test_every_handler_takes_the_rows_input_model(tool: ToolSpec[Any]) -> None:
    # The table names its models lazily (they load with the tool's first call): the
    # handlers' annotations resolve against the models package.
    # A row with a ``fast_input`` (churn: its common shape parsed without pydantic) also
    # takes what that returns, and nothing else.
    from warpline.service.history.churn_input import ChurnArgs

    localns = {**{n: getattr(models, n) for n in models.__all__}, "ChurnArgs": ChurnArgs}
    hints = get_type_hints(tool.handler, localns=localns)
    first = next(iter(inspect.signature(tool.handler).parameters))
    if tool.fast_input is None:
        assert hints[first] is tool.input_model
        return
    fast = {t for t in get_args(get_type_hints(tool.fast_input, localns=localns)["return"])
            if t is not type(None)}
    assert set(get_args(hints[first])) == {tool.input_model, *fast} and len(fast) == 1


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.shim)
def test_every_row_has_its_cli_subcommand_calling_the_tool(tool: ToolSpec[Any]) -> None:
    parser = SUBCOMMANDS[tool.cli_command]
    assert parser.get_default("tool") == tool.endorsed
    flags = {flag for action in parser._actions for flag in action.option_strings}
    assert {"--repo", "--json"} <= flags


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.shim)
def test_every_row_has_a_parity_case_through_its_cli_command(tool: ToolSpec[Any]) -> None:
    assert any(argv[0] == tool.cli_command and name in tool.names for argv, name, _ in CASES)


def test_the_readme_tool_table_is_the_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert markdown_table() in readme


def test_the_tools_page_is_generated_from_the_table() -> None:
    assert DOCS_PAGE.read_text(encoding="utf-8") == docs_page()
    for spec in TOOLS:
        assert f"## `{spec.endorsed}`" in docs_page()


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.shim)
def test_every_row_has_a_table_view(tool: ToolSpec[Any]) -> None:
    assert callable(tool_commands()[tool.endorsed].view)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.shim)
def test_a_next_line_names_the_rows_command(tool: ToolSpec[Any]) -> None:
    from warpline.cli.next_cmd import shell_command

    assert shell_command(tool.endorsed, {"repo": "/r"}) == f"warpline {tool.cli_command} --repo /r"


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.shim)
@pytest.mark.parametrize("refs", [[], [{"kind": "locator", "value": "python:function:a.b"}]])
def test_the_rows_example_is_valid_and_writes_nothing_a_user_owns(
        tool: ToolSpec[Any], refs: list[dict[str, str]]) -> None:
    from warpline.cli.smoke import minimal_arguments
    from warpline.service.shared.validation import validate_input

    arguments = minimal_arguments(tool.endorsed, "/r", refs)
    if tool.example is None:
        assert arguments is None and tool.mutating
        return
    assert arguments is not None
    validate_input(tool, arguments)  # raises, naming the field, when invalid
    assert not tool.mutating or arguments.get("dry_run") is True


@pytest.mark.parametrize(("command", "flag", "vocabulary"), [
    ("changed", "--change-kind", ChangeKind), ("changed", "--entity-kind", EntityKind),
    ("changed", "--sort-order", SortOrder), ("timeline", "--ref-kind", EntityRefKind),
    ("blast-radius", "--edge-kind", EdgeKind), ("reverify", "--group-by", GroupBy),
    ("reverify", "--verification-state", VerificationState), ("reverify", "--reason", Reason),
    ("capture-snapshot", "--mode", CaptureMode),
])
def test_cli_choices_are_the_vocabulary(command: str, flag: str, vocabulary: Any) -> None:
    action = next(a for a in SUBCOMMANDS[command]._actions if flag in a.option_strings)
    assert tuple(action.choices or ()) == get_args(vocabulary)
