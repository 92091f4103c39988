"""The JavaScript rows' maps and runs, for real on fixture projects: mocha's per-test map
(one run, V8's coverage through the inspector around each test), Vitest's per-file map of
TypeScript (through its v8 provider's source maps), the selection a map answers with, and
a watched run's outcomes as a receipt keeps them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from tests.jsfixture import js_repo
from warpline.runners import receipt_seal
from warpline.runners.js_record import record_runner
from warpline.runners.js_run import run_ids
from warpline.runners.mocha import MOCHA
from warpline.runners.receipt import write
from warpline.service.admin.backing import backing_receipt

LIB = """// math helpers
exports.add = function add(a, b) {
  return a + b;
};

exports.mul = (a, b) => a * b;

exports.unused = function unused() {
  return 0;
};
"""

MOCHA_TESTS = """const assert = require('node:assert');
const {add, mul} = require('../lib');

describe('math', () => {
  it('adds', () => assert.strictEqual(add(1, 2), 3));
  describe('times', () => {
    it('multiplies', () => assert.strictEqual(mul(2, 3), 6));
  });
});
"""


def _commit(root: Path) -> tuple[pygit2.Repository, pygit2.Commit]:
    repo = pygit2.Repository(str(root))
    return repo, repo.head.peel(pygit2.Commit)


def test_mocha_records_a_map_per_test(tmp_path: Path) -> None:
    root = js_repo(tmp_path, {"name": "fx", "scripts": {"test": "mocha --check-leaks"}}, [],
                   {"lib.js": LIB, "test/math.js": MOCHA_TESTS})
    repo, commit = _commit(root)
    recorded, outcomes, status, partial = record_runner(root, repo, commit, 1, "mocha")
    assert status == 0 and partial == []
    adds, multiplies = "test/math.js::math > adds", "test/math.js::math > times > multiplies"
    assert outcomes == {adds: "passed", multiplies: "passed"}
    functions = {t: {h for h in hits if h.startswith("ts:function:lib.")}
                 for t, hits in recorded.hits.items()}
    assert functions[adds] == {"ts:function:lib.add"}
    assert functions[multiplies] == {"ts:function:lib.mul"}
    assert "ts:function:lib.unused" not in recorded.entity_paths  # loaded, never run
    assert recorded.source == "mocha-v8"


def test_vitest_records_a_map_per_file_through_source_maps(tmp_path: Path) -> None:
    source = ("export function shout(text: string): string {\n"
              "  const loud: string = text.toUpperCase();\n"
              "  return loud + '!';\n"
              "}\n\n"
              "export function whisper(text: string): string {\n"
              "  return text.toLowerCase();\n"
              "}\n")
    test = ("import {expect, it} from 'vitest';\n"
            "import {shout} from '../src/talk';\n"
            "it('shouts', () => { expect(shout('a')).toBe('A!'); });\n")
    root = js_repo(tmp_path, {"name": "fx", "type": "module",
                              "scripts": {"test": "vitest run"}}, [],
                   {"src/talk.ts": source, "test/talk.test.ts": test})
    repo, commit = _commit(root)
    recorded, outcomes, status, partial = record_runner(root, repo, commit, 1, "vitest")
    assert (status, partial, outcomes) == (0, [], {"test/talk.test.ts": "passed"})
    hits = recorded.hits["test/talk.test.ts"]
    assert "ts:function:src/talk.shout" in hits
    assert "ts:function:src/talk.whisper" not in hits


def test_a_watched_run_reads_each_tests_outcome_into_its_receipt(tmp_path: Path) -> None:
    failing = MOCHA_TESTS.replace("mul(2, 3), 6", "mul(2, 3), 7")
    root = js_repo(tmp_path, {"name": "fx", "scripts": {"test": "mocha"}}, [],
                   {"lib.js": LIB, "test/math.js": failing})
    repo, _ = _commit(root)
    state, status = run_ids(root, "mocha", ["test/math.js"])
    assert status != 0
    assert state.outcomes == {"test/math.js::math > adds": "passed",
                              "test/math.js::math > times > multiplies": "failed"}
    receipt = write(root, repo, state, status, [], "", MOCHA)
    assert receipt["runner"] == "mocha" and receipt["clean"]
    assert receipt["failed_tests"] == ["test/math.js::math > times > multiplies"]
    state, status = run_ids(root, "mocha", ["test/math.js::math > adds"])
    assert (state.outcomes, status) == ({"test/math.js::math > adds": "passed"}, 0)


@pytest.mark.parametrize(("runner", "package", "test"), [
    ("jest", {"scripts": {"test": "jest"}},
     "const {add} = require('../lib');\ntest('adds', () => expect(add(1, 2)).toBe(3));\n"),
    ("ava", {"scripts": {"test": "ava"}},
     "const test = require('ava');\nconst {add} = require('../lib');\n"
     "test('adds', t => t.is(add(1, 2), 3));\n"),
    ("node-test", {"scripts": {"test": "node --test"}},
     "const {test} = require('node:test');\nconst assert = require('node:assert');\n"
     "const {add} = require('../lib');\ntest('adds', () => assert.strictEqual(add(1, 2), 3));\n"),
])
def test_the_other_runners_record_a_map_per_test_file(
        tmp_path: Path, runner: str, package: dict[str, object], test: str) -> None:
    root = js_repo(tmp_path, {"name": "fx", **package}, [],
                   {"lib.js": LIB, "test/add.test.js": test})
    repo, commit = _commit(root)
    recorded, outcomes, status, partial = record_runner(root, repo, commit, 1, runner)
    assert (status, partial, outcomes) == (0, [], {"test/add.test.js": "passed"})
    functions = {h for h in recorded.hits["test/add.test.js"] if h.startswith("ts:function:")}
    assert functions == {"ts:function:lib.add"}


def _warpline(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WARPLINE_", "GITHUB_"))
           and k != "CI"}
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_record_and_run_tests_leave_sealed_receipts_that_back_a_pass(tmp_path: Path) -> None:
    root = js_repo(tmp_path, {"name": "fx", "scripts": {"test": "mocha"}}, [],
                   {"lib.js": LIB, "test/math.js": MOCHA_TESTS, ".gitignore": "node_modules\n"})
    _, commit = _commit(root)
    done = _warpline(root, "record-tests", "--runner", "mocha", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(done.stdout)["records"]
    assert (row["runner"], row["source"], row["tests"]) == ("mocha", "mocha-v8", 2)
    receipt = backing_receipt(root, str(commit.id))  # sealed with the store's key
    assert receipt["runner"] == "mocha" and receipt["exit_status"] == 0
    done = _warpline(root, "run-tests", "--runner", "mocha", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    assert run["receipt"]["tests_run"] == 2 and receipt_seal.SEAL in run["receipt"]
