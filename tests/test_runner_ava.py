"""AVA's row: detection, ids, and its printed commands run for real on a fixture project
(``--match`` per title; AVA has no suites)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import check_printed_commands, js_repo, suite_files
from warpline.runners.ava import AVA

PACKAGE = {"name": "fx", "private": True, "scripts": {"test": "ava"},
           "ava": {"files": ["test/**/*.test.js"]}}


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("ava", header="const test = require('ava');\n")
    check_printed_commands(AVA, js_repo(tmp_path, PACKAGE, files), files)
