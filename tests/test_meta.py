"""Completeness: every tool of the frozen inventory is built, documented and tested."""

from __future__ import annotations

from pathlib import Path

import pytest

from warpline.registry import implemented_tools, inventory

ROOT = Path(__file__).resolve().parent.parent
TOOLS = inventory()


def test_this_build_implements_all_eight_tools_of_the_inventory() -> None:
    assert len(TOOLS) == 8
    assert {t.endorsed for t in implemented_tools()} == {t.endorsed for t in TOOLS}


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.shim)
def test_every_tool_has_contracts_docs_a_cli_command_and_parity_tests(tool: object) -> None:
    from warpline.registry import ToolSpec

    assert isinstance(tool, ToolSpec)
    assert tool.input_schema()["type"] == "object"
    assert tool.output_schema()["properties"]["schema"]["const"] == tool.schema
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`{tool.endorsed}`" in readme and f"`{tool.shim}`" in readme
    parity = (ROOT / "tests" / "test_parity.py").read_text(encoding="utf-8")
    # The parity tests run the tool through the CLI and through MCP.
    assert tool.endorsed in parity or f'"{tool.shim}"' in parity
