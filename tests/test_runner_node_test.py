"""``node --test``'s row: detection, ids, and its printed commands run for real on a
fixture project (Node 20 matches a test's own name, later Nodes its full name: the
pattern holds both)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import check_printed_commands, js_repo, suite_files
from warpline.runners.nodetest import NODE_TEST

PACKAGE = {"name": "fx", "private": True, "scripts": {"test": "node --test"}}


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("cjs", header="const {describe, it} = require('node:test');\n")
    check_printed_commands(NODE_TEST, js_repo(tmp_path, PACKAGE, files), files)
