"""``node --test``'s row: detection, ids, and its printed commands run for real on a
fixture project (Node 20 matches a test's own name, later Nodes its full name: the
pattern holds both)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import expected, js_repo, ran, selections, suite_files
from warpline.runners import owner_of, used_for
from warpline.runners.nodetest import NODE_TEST

PACKAGE = {"name": "fx", "private": True, "scripts": {"test": "node --test"}}


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("cjs", header="const {describe, it} = require('node:test');\n")
    root = js_repo(tmp_path, PACKAGE, files)
    assert [r.name for r in used_for(root, ["javascript"])] == ["node-test"]
    for chosen in selections(files):
        assert owner_of(chosen[0], root) is NODE_TEST
        built = NODE_TEST.command(root, chosen)
        assert built is not None and not built[1]
        assert ran(root, built[0]) == expected(files, chosen), built[0]
