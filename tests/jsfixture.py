"""Small JavaScript projects for the JS runners' rows, run with the real runners.

The runners come from one cache of pinned packages (``RUNNER_PACKAGES``) that ``.ci/run``
installs once (``npm install --prefix <cache>``); a project links its ``node_modules`` to
it, so a test runs offline. Without the cache, it is installed here the same way (npm and
the registry being the toolchain); without node or npm the tests skip, saying so.

A fixture's tests log their own id when they run (``RAN_LOG``): what a printed command ran
is read from there, whatever the runner's reporter prints.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from warpline.runners.row import Runner

__all__ = ["RUNNER_PACKAGES", "JsTestFile", "js_repo", "ran", "runners_cache"]

# What .ci/run installs, pinned (one file for both).
RUNNER_PACKAGES = tuple(
    line.strip() for line in (Path(__file__).parent / "js_runners.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#"))
CACHE_ENV = "WARPLINE_JS_RUNNERS"


def _installed(modules: Path) -> bool:
    for spec in RUNNER_PACKAGES:
        name, _, version = spec.rpartition("@")
        try:
            found = json.loads((modules / name / "package.json").read_text())
        except (OSError, ValueError):
            return False
        if found.get("version") != version:
            return False
    return True


def runners_cache() -> Path:
    """The ``node_modules`` holding the pinned runners (installed on first use)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the JS runners cannot run")
    base = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "warpline-js-runners")
    modules = base / "node_modules"
    base.mkdir(parents=True, exist_ok=True)
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed(modules):
            (base / "package.json").write_text('{"name": "warpline-js-runners", '
                                               '"private": true}\n')
            done = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--save-exact", "--prefix",
                 str(base), *RUNNER_PACKAGES], capture_output=True, text=True, timeout=900)
            if done.returncode != 0 or not _installed(modules):
                pytest.fail(f"npm could not install the JS runners: {done.stderr[-2000:]}")
    return modules


class JsTestFile:
    """A test file whose tests log their ids: ``tests`` maps a name path (suites, then the
    test's name) to nothing; ``style`` is the runner's dialect."""

    def __init__(self, path: str, tests: list[tuple[str, ...]], style: str,
                 header: str = "") -> None:
        self.path = path
        self.tests = tests
        self.style = style
        self.header = header

    def ids(self) -> list[str]:
        return [f"{self.path}::{' > '.join(t)}" for t in self.tests]

    def source(self) -> str:
        log = ("const __fs = require('node:fs');\n" if self.style != "esm"
               else "import * as __fs from 'node:fs';\n")
        lines = [self.header, log,
                 "const __log = (id) => __fs.appendFileSync(process.env.RAN_LOG, id + '\\n');\n"]
        tree: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
        for test in self.tests:
            tree.setdefault(test[:-1], []).append(test)
        lines.append(self._suite((), tree))
        return "".join(lines)

    def _suite(self, prefix: tuple[str, ...], tree: dict[tuple[str, ...], list[tuple[str, ...]]]
               ) -> str:
        out = []
        for test in tree.get(prefix, []):
            test_id = f"{self.path}::{' > '.join(test)}"
            if self.style == "ava":
                out.append(f"test({json.dumps(test[-1])}, t => {{ __log({json.dumps(test_id)});"
                           " t.pass(); });\n")
            else:
                out.append(f"it({json.dumps(test[-1])}, () => {{ __log({json.dumps(test_id)}); "
                           "});\n")
        children = sorted({k[:len(prefix) + 1] for k in tree
                           if len(k) > len(prefix) and k[:len(prefix)] == prefix})
        for child in children:
            out.append(f"describe({json.dumps(child[-1])}, () => {{\n"
                       + self._suite(child, tree) + "});\n")
        return "".join(out)


def js_repo(tmp_path: Path, package: dict[str, object], files: list[JsTestFile],
            extra: dict[str, str] | None = None) -> Path:
    """A committed project with the pinned runners linked in as ``node_modules``."""
    root = tmp_path / "project"
    repo = FixtureRepo(root)
    contents: dict[str, str | bytes | None] = {
        "package.json": json.dumps(package, indent=1) + "\n",
        ".gitignore": "node_modules\n"}
    contents.update({f.path: f.source() for f in files})
    contents.update(extra or {})
    repo.commit(dict(contents), "fixture")
    (root / "node_modules").symlink_to(runners_cache(), target_is_directory=True)
    return root


def ran(root: Path, command: str) -> list[str]:
    """The ids the fixture's tests logged while ``command`` ran, as printed, in bash from
    ``root`` (sorted; a failing command fails the test)."""
    log = root.parent / "ran.log"
    log.write_text("")
    env = {**os.environ, "RAN_LOG": str(log), "CI": "1", "NO_COLOR": "1"}
    done = subprocess.run(["bash", "-c", command], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
    return sorted(line for line in log.read_text().splitlines() if line)


def suite_files(style: str, header: str = "", sub: bool = False) -> list[JsTestFile]:
    """Two test files whose names need escaping and quoting and collide across files
    (``sub``: a third whose path contains the first's)."""
    a: list[tuple[str, ...]]
    b: list[tuple[str, ...]]
    if style == "ava":
        a = [('adds "quoted"',), ("adds",), ("it's [x]* (a|b)",), ("top level",)]
        b = [("adds",), ("other",)]
    else:
        a = [("math (a|b)", 'adds "quoted"'), ("math (a|b)", "adds"),
             ("math (a|b)", "deep", "it's [x]*"), ("top level",)]
        b = [("math (a|b)", "adds"), ("other",)]
    files = [JsTestFile("test/a.test.js", a, style, header),
             JsTestFile("test/b.test.js", b, style, header)]
    if sub:
        files.append(JsTestFile("sub/test/a.test.js", a[:2], style, header))
    return files


def selections(files: list[JsTestFile]) -> list[list[str]]:
    """Selections whose commands must run exactly them: a name another file shares, names
    needing escapes, a whole file beside a named test."""
    a = files[0].ids()
    return [[a[1]], [a[2], a[3]], [files[1].path, a[0]]]


def expected(files: list[JsTestFile], chosen: list[str]) -> list[str]:
    out: set[str] = set()
    for test_id in chosen:
        whole = next((f for f in files if f.path == test_id), None)
        out.update(whole.ids() if whole is not None else [test_id])
    return sorted(out)


# A small mocha project for the JS mutant bench's tiny run (bench/bench_js_mutants.py).
TINY_PROJECT = {
    "package.json": '{"name": "tiny", "private": true, "scripts": {"test": "mocha"}}\n',
    ".gitignore": "node_modules\n",
    "lib/math.js": ("exports.add = function add(a, b) {\n  return a + b;\n};\n\n"
                    "exports.mul = function mul(a, b) {\n  return a * b;\n};\n\n"
                    "exports.neg = function neg(a) {\n  return -a;\n};\n"),
    "lib/index.js": "module.exports = require('./math');\n",
    "test/math.js": ("const assert = require('node:assert');\n"
                     "const {add, mul, neg} = require('../lib');\n"
                     "describe('math', () => {\n"
                     "  it('adds', () => assert.strictEqual(add(1, 2), 3));\n"
                     "  it('multiplies', () => assert.strictEqual(mul(2, 3), 6));\n"
                     "  it('negates', () => assert.strictEqual(neg(2), -2));\n"
                     "});\n"),
}


def check_printed_commands(runner: Runner, root: Path, files: list[JsTestFile],
                           language: str = "javascript") -> list[str]:
    """The row is the one used and the owner of the fixture's ids, and each selection's
    printed command runs exactly its tests (from their own log); the commands."""
    from warpline.runners import owner_of, used_for

    assert [r.name for r in used_for(root, [language])] == [runner.name]
    commands = []
    for chosen in selections(files):
        assert owner_of(chosen[0], root) is runner
        built = runner.command(root, chosen)
        assert built is not None and not built[1]
        assert ran(root, built[0]) == expected(files, chosen), built[0]
        commands.append(built[0])
    return commands
