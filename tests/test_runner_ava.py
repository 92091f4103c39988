"""AVA's row: detection, ids, and its printed commands run for real on a fixture project
(``--match`` per title; AVA has no suites)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import expected, js_repo, ran, selections, suite_files
from warpline.runners import owner_of, used_for
from warpline.runners.ava import AVA

PACKAGE = {"name": "fx", "private": True, "scripts": {"test": "ava"},
           "ava": {"files": ["test/**/*.test.js"]}}


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("ava", header="const test = require('ava');\n")
    root = js_repo(tmp_path, PACKAGE, files)
    assert [r.name for r in used_for(root, ["javascript"])] == ["ava"]
    for chosen in selections(files):
        assert owner_of(chosen[0], root) is AVA
        built = AVA.command(root, chosen)
        assert built is not None and not built[1]
        assert ran(root, built[0]) == expected(files, chosen), built[0]
