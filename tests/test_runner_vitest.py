"""Vitest's row: detection, ids, and its printed commands run for real on a fixture
project (exactly the chosen tests: a file argument is a substring filter for Vitest, so a
test file whose path contains a chosen one's is excluded)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import expected, js_repo, ran, selections, suite_files
from warpline.runners import owner_of, used_for
from warpline.runners.vitest import VITEST

PACKAGE = {"name": "fx", "private": True, "type": "module",
           "scripts": {"test": "vitest run --coverage"}, "devDependencies": {"jest": "*"}}
CONFIG = "import {defineConfig} from 'vitest/config'\n" \
         "export default defineConfig({test: {globals: true, include: ['**/test/*.test.js']}})\n"


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("esm", sub=True)
    root = js_repo(tmp_path, PACKAGE, files, {"vitest.config.mjs": CONFIG})
    # Its script runs vitest: the jest still among its dependencies is not what it uses.
    assert [r.name for r in used_for(root, ["typescript"])] == ["vitest"]
    for chosen in selections(files):
        assert owner_of(chosen[0], root) is VITEST
        built = VITEST.command(root, chosen)
        assert built is not None and not built[1]
        assert "--exclude sub/test/a.test.js" in built[0] or "test/a.test.js" not in built[0]
        assert ran(root, built[0]) == expected(files, chosen), built[0]
