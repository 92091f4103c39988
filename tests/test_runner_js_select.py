"""A JavaScript repository's selection through ``reverify``, for real: without a map the
floor (the test files importing the changed file, through a re-exporting index) in mocha's
syntax; with a map recorded at the base, the tests that executed the changed function,
each by name; both commands run as printed and run exactly the selection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from tests.jsfixture import ran, runners_cache
from warpline.registry import call_tool
from warpline.runners.js_record import record_runner
from warpline.service.shared.context import open_context
from warpline.store.testmaps import write_map

LOG = "const __log = (id) => require('node:fs').appendFileSync(process.env.RAN_LOG, id + '\\n');\n"
FILES = {
    "package.json": '{"name": "fx", "scripts": {"test": "mocha --check-leaks"}}\n',
    ".gitignore": "node_modules\n",
    "lib/math.js": ("exports.add = function add(a, b) {\n  return a + b;\n};\n\n"
                    "exports.mul = function mul(a, b) {\n  return a * b;\n};\n"),
    "lib/words.js": "exports.shout = function shout(s) {\n  return s.toUpperCase();\n};\n",
    "lib/index.js": "module.exports = require('./math');\n",
    "test/math.js": (LOG + "const assert = require('node:assert');\n"
                     "const {add, mul} = require('../lib');\n"
                     "describe('math', () => {\n"
                     "  it('adds', () => { __log('test/math.js::math > adds');"
                     " assert.strictEqual(add(1, 2), 3); });\n"
                     "  it('multiplies', () => { __log('test/math.js::math > multiplies');"
                     " assert.strictEqual(mul(2, 3), 6); });\n"
                     "});\n"),
    "test/words.js": (LOG + "const assert = require('node:assert');\n"
                      "const {shout} = require('../lib/words');\n"
                      "it('shouts', () => { __log('test/words.js::shouts');"
                      " assert.strictEqual(shout('a'), 'A'); });\n"),
}
CHANGED = {"lib/math.js": FILES["lib/math.js"].replace("return a * b;", "return b * a;")}


def _repo(tmp_path: Path) -> tuple[FixtureRepo, Path]:
    repo = FixtureRepo(tmp_path / "project")
    repo.commit(dict(FILES), "base")
    root = tmp_path / "project"
    (root / "node_modules").symlink_to(runners_cache(), target_is_directory=True)
    return repo, root


def _selection(root: Path) -> dict[str, Any]:
    envelope = call_tool("reverify", {"repo": str(root), "rev_range": "HEAD~1..HEAD"})
    selection: dict[str, Any] = envelope["data"]["selection"]
    # Every suggested test's own command is its runner's too, runnable as printed.
    suggested = {s["command"] for item in envelope["data"]["items"]
                 for s in item.get("suggested_verification", []) if s["kind"] == "test"}
    assert suggested and all(c.startswith("npx mocha --check-leaks ") for c in suggested)
    return selection


def test_without_a_map_the_floor_runs_the_files_importing_the_change(tmp_path: Path) -> None:
    repo, root = _repo(tmp_path)
    repo.commit(dict(CHANGED), "mul changed")
    selection = _selection(root)
    assert selection["basis"] == "static"
    assert selection["tests"] == ["test/math.js"]  # through lib/index.js; not test/words.js
    (run,) = selection["runners"]
    assert run["runner"] == "mocha" and run["command"] == "npx mocha --check-leaks test/math.js"
    assert ran(root, run["command"]) == ["test/math.js::math > adds",
                                         "test/math.js::math > multiplies"]


def test_with_a_map_the_tests_that_ran_the_changed_function(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, root = _repo(tmp_path)
    monkeypatch.setenv("RAN_LOG", str(tmp_path / "recording.log"))
    git = pygit2.Repository(str(root))
    recorded, _, status, _ = record_runner(root, git, git.head.peel(pygit2.Commit), 1, "mocha")
    assert status == 0
    with open_context(str(root), root) as ctx:
        write_map(ctx.store, recorded)
    repo.commit(dict(CHANGED), "mul changed")
    selection = _selection(root)
    assert selection["basis"] == "map"
    assert selection["tests"] == ["test/math.js::math > multiplies"]
    (run,) = selection["runners"]
    assert ran(root, run["command"]) == ["test/math.js::math > multiplies"]


def test_a_lock_file_change_runs_the_packages_whole_suite_with_the_reason(
        tmp_path: Path) -> None:
    repo, root = _repo(tmp_path)
    repo.commit({"package-lock.json": '{"lockfileVersion": 3}\n', **CHANGED}, "deps and mul")
    envelope = call_tool("reverify", {"repo": str(root), "rev_range": "HEAD~1..HEAD"})
    selection = envelope["data"]["selection"]
    (run,) = selection["runners"]
    assert (run["runner"], run["whole_suite"], run["command"]) == ("mocha", True, "npm test")
    assert {"locator": "core:file:package-lock.json", "kind": "test_config",
            "runners": ["mocha"]} in selection["non_code"]


def test_a_changed_test_file_runs_itself(tmp_path: Path) -> None:
    repo, root = _repo(tmp_path)
    repo.commit({"test/words.js": FILES["test/words.js"].replace("'a'), 'A'", "'b'), 'B'")},
                "words test")
    selection = _selection_of(root)
    assert "test/words.js" in selection["tests"]
    (run,) = selection["runners"]
    assert run["runner"] == "mocha" and not run["whole_suite"]
    assert ran(root, run["command"]) == ["test/words.js::shouts"]


def _selection_of(root: Path) -> dict[str, Any]:
    envelope = call_tool("reverify", {"repo": str(root), "rev_range": "HEAD~1..HEAD"})
    found: dict[str, Any] = envelope["data"]["selection"]
    return found
