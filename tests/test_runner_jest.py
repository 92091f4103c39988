"""Jest's row: detection, ids, and its printed commands run for real on a fixture project
(exactly the chosen tests, names escaped and quoted)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import check_printed_commands, js_repo, suite_files
from warpline.runners.jest import JEST

PACKAGE = {"name": "fx", "private": True, "scripts": {"test": "jest --coverage"},
           "jest": {"testMatch": ["**/test/**/*.test.js"]}}


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("cjs")
    root = js_repo(tmp_path, PACKAGE, files)
    assert JEST.detect(root)
    for command in check_printed_commands(JEST, root, files):
        assert "--coverage" not in command
