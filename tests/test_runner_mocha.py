"""Mocha's row: detection, ids, and its printed commands run for real on a fixture project
(the script's own options kept; spec files of the config, which mocha merges with the
command line's, ignored unless chosen)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import check_printed_commands, js_repo, suite_files
from warpline.runners.mocha import MOCHA

PACKAGE = {"name": "fx", "private": True,
           "scripts": {"test": "mocha --require test/setup.js --check-leaks"}}
EXTRA = {".mocharc.json": '{"spec": ["test/*.test.js"]}\n',
         "test/setup.js": "globalThis.__setup = true;\n"}


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("cjs", header="if (!globalThis.__setup) throw new Error('no setup');\n")
    root = js_repo(tmp_path, PACKAGE, files, EXTRA)
    for command in check_printed_commands(MOCHA, root, files):
        assert "--require test/setup.js" in command
