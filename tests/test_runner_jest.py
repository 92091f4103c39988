"""Jest's row: detection, ids, and its printed commands run for real on a fixture project
(exactly the chosen tests, names escaped and quoted)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import expected, js_repo, ran, selections, suite_files
from warpline.runners import owner_of, used_for
from warpline.runners.jest import JEST

PACKAGE = {"name": "fx", "private": True, "scripts": {"test": "jest --coverage"},
           "jest": {"testMatch": ["**/test/**/*.test.js"]}}


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("cjs")
    root = js_repo(tmp_path, PACKAGE, files)
    assert JEST.detect(root)
    assert [r.name for r in used_for(root, ["javascript"])] == ["jest"]
    for chosen in selections(files):
        assert owner_of(chosen[0], root) is JEST
        built = JEST.command(root, chosen)
        assert built is not None and not built[1]
        assert "--coverage" not in built[0]
        assert ran(root, built[0]) == expected(files, chosen), built[0]
