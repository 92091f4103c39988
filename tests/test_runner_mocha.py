"""Mocha's row: detection, ids, and its printed commands run for real on a fixture project
(the script's own options kept; spec files of the config, which mocha merges with the
command line's, ignored unless chosen)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import expected, js_repo, ran, selections, suite_files
from warpline.runners import owner_of, used_for
from warpline.runners.mocha import MOCHA

PACKAGE = {"name": "fx", "private": True,
           "scripts": {"test": "mocha --require test/setup.js --check-leaks"}}
EXTRA = {".mocharc.json": '{"spec": ["test/*.test.js"]}\n',
         "test/setup.js": "globalThis.__setup = true;\n"}


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("cjs", header="if (!globalThis.__setup) throw new Error('no setup');\n")
    root = js_repo(tmp_path, PACKAGE, files, EXTRA)
    assert [r.name for r in used_for(root, ["javascript"])] == ["mocha"]
    for chosen in selections(files):
        assert owner_of(chosen[0], root) is MOCHA
        built = MOCHA.command(root, chosen)
        assert built is not None and not built[1]
        assert "--require test/setup.js" in built[0]
        assert ran(root, built[0]) == expected(files, chosen), built[0]
