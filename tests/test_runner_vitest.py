"""Vitest's row: detection, ids, and its printed commands run for real on a fixture
project (exactly the chosen tests: a file argument is a substring filter for Vitest, so a
test file whose path contains a chosen one's is excluded)."""

from __future__ import annotations

from pathlib import Path

from tests.jsfixture import check_printed_commands, js_repo, suite_files
from warpline.runners.vitest import VITEST

PACKAGE = {"name": "fx", "private": True, "type": "module",
           "scripts": {"test": "vitest run --coverage"}, "devDependencies": {"jest": "*"}}
CONFIG = "import {defineConfig} from 'vitest/config'\n" \
         "export default defineConfig({test: {globals: true, include: ['**/test/*.test.js']}})\n"


def test_printed_commands_run_exactly_the_selection(tmp_path: Path) -> None:
    files = suite_files("esm", sub=True)
    root = js_repo(tmp_path, PACKAGE, files, {"vitest.config.mjs": CONFIG})
    # Its script runs vitest: the jest still among its dependencies is not what it uses.
    commands = check_printed_commands(VITEST, root, files, "typescript")
    assert any("--exclude sub/test/a.test.js" in c for c in commands)
