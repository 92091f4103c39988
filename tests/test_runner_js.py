"""What the JavaScript runners' rows share, on small fixture repositories read as data:
which runner a package uses (a repository that changed runner, a workspace package), its
test files by its config, its tests' names, the owner of an id, and a selection narrowed
to what the work tree still runs. (Each row's printed commands run for real in
test_runner_<name>.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from warpline.runners import js_files, owner_of, partition, used_for
from warpline.runners.jest import JEST
from warpline.runners.js_detect import project_of, projects
from warpline.runners.js_globs import compile_glob
from warpline.runners.js_names import file_tests
from warpline.runners.mocha import MOCHA
from warpline.runners.vitest import VITEST


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _package(**fields: object) -> str:
    return json.dumps({"name": "p", **fields})


def test_the_runner_is_the_one_the_test_script_runs_now(tmp_path: Path) -> None:
    # immer's history: Jest's config and dependency still there, the script runs Vitest.
    root = _write(tmp_path, {
        "package.json": _package(scripts={"test": "vitest run && yarn build",
                                          "build": "tsup"},
                                 devDependencies={"jest": "^29", "vitest": "^3"}),
        "jest.config.js": "module.exports = {testMatch: ['**/*.spec.js']}\n",
        "__tests__/a.js": "test('x', () => {})\n"})
    assert [p.runner for p in projects(root)] == ["vitest"]
    assert VITEST.detect(root) and not JEST.detect(root)
    assert [r.name for r in used_for(root, ["javascript"])] == ["vitest"]
    assert owner_of("__tests__/a.js::x", root) is VITEST


def test_a_script_through_npm_run_and_wrappers_with_its_environment(tmp_path: Path) -> None:
    root = _write(tmp_path, {"package.json": _package(scripts={
        "test": "xo && npm run unit", "unit": "NODE_OPTIONS='--import=tsx/esm' c8 ava"})})
    (project,) = projects(root)
    assert project.runner == "ava"
    assert project.call.env == ("NODE_OPTIONS=--import=tsx/esm",)


def test_without_a_script_the_config_file_then_the_dependencies(tmp_path: Path) -> None:
    root = _write(tmp_path / "a", {"package.json": _package(), ".mocharc.yml": "spec: t/\n"})
    assert projects(root)[0].runner == "mocha"
    root = _write(tmp_path / "b", {"package.json": _package(devDependencies={"jest": "1"})})
    assert projects(root)[0].runner == "jest"
    root = _write(tmp_path / "c", {"package.json": _package()})
    assert projects(root)[0].runner is None
    assert used_for(root, ["javascript"]) == []


def test_each_workspace_package_gets_its_own_runner_and_directory(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "package.json": _package(private=True),
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
        "packages/a/package.json": _package(scripts={"test": "vitest"}),
        "packages/a/src/x.test.ts": "it('a', () => {})\n",
        "packages/b/package.json": _package(scripts={"test": "mocha"}),
        "packages/b/test/y.js": "it('b', () => {})\n"})
    assert project_of(root, "packages/a/src/x.test.ts").runner == "vitest"  # type: ignore[union-attr]
    ids = ["packages/a/src/x.test.ts::a", "packages/b/test/y.js::b"]
    assert partition(ids, root) == {"vitest": ids[:1], "mocha": ids[1:]}
    built = MOCHA.command(root, ids[1:])
    assert built is not None
    assert built[0] == "(cd packages/b && npx mocha test/y.js --grep '^(b)$')"


def test_test_files_follow_each_runners_config(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "package.json": _package(scripts={"test": "jest"}),
        "jest.config.js": "module.exports = {roots: ['<rootDir>/test'], "
                          "testPathIgnorePatterns: ['/fixtures/']}\n",
        "test/a.test.js": "", "test/fixtures/b.test.js": "", "src/c.test.js": "",
        "test/__tests__/d.js": "", "node_modules/e/x.test.js": ""})
    assert js_files.test_files(projects(root)[0]) == ["test/__tests__/d.js", "test/a.test.js"]
    mocha = _write(tmp_path / "m", {
        "package.json": _package(scripts={"test": "mocha --require t/env test/ test/acc/"}),
        "test/a.js": "", "test/acc/b.js": "", "test/acc/deep/c.js": "", "test/x.ts": ""})
    assert js_files.test_files(projects(mocha)[0]) == ["test/a.js", "test/acc/b.js"]
    ava = _write(tmp_path / "v", {
        "package.json": _package(scripts={"test": "ava"},
                                 ava={"files": ["test/*", "!test/*.types.ts"],
                                      "extensions": {"ts": "module"}}),
        "test/a.ts": "", "test/b.types.ts": "", "test/helpers/h.ts": "", "test/_c.ts": ""})
    assert js_files.test_files(projects(ava)[0]) == ["test/a.ts"]


def test_globs_in_the_runners_dialect() -> None:
    match = compile_glob("**/?(*.)+(spec|test).?([mc])[jt]s?(x)")
    assert match.match("src/a.test.ts") and match.match("test.js")
    assert not match.match("src/atest.js") and not match.match(".hidden/a.test.js")
    assert compile_glob("**/*.{test,spec}.?(c|m)[jt]s?(x)").match("a/b.spec.mjs")


def test_names_of_nested_suites_static_and_computed() -> None:
    source = (b"describe('a', () => {\n"
              b"  it.only('b \\'q\\'', () => {});\n"
              b"  test.each([1])('c %s', () => {});\n"
              b"  describe(`n`, () => { it(\"deep\", async () => {}) });\n"
              b"  describe(name, () => { it('x', () => {}) });\n"
              b"});\n"
              b"test('top', async (t) => { await t.test('sub', () => {}) });\n")
    found = file_tests(source, "vitest", "a.test.ts")
    assert [t.path for t in found.tests] == [("a", "b 'q'"), ("a", "n", "deep"), ("top",)]
    assert found.dynamic == 2  # the table and the test under a computed suite name


def test_a_selection_keeps_what_the_work_tree_still_runs(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "package.json": _package(scripts={"test": "mocha"}),
        "test/a.js": "describe('s', () => { it('kept', () => {}) })\n",
        "test/helpers/h.js": ""})
    ids = ["test/a.js::s > kept", "test/a.js::s > gone", "test/gone.js",
           "test/helpers/h.js", "lib/x.js"]
    assert MOCHA.collectable(root, ids) == ["test/a.js::s > kept"]


def test_the_import_floor_follows_re_exports_and_importers(tmp_path: Path) -> None:
    from warpline.runners.js_imports import importing_tests

    root = _write(tmp_path, {
        "src/core.ts": "export const f = () => 1;\n",
        "src/helper.ts": "import {f} from './core.js';\nexport const g = () => f();\n",
        "src/index.ts": "export * from './helper';\nimport {h} from './cjs/index.js';\n"
                        "export {h};\n",
        "src/cjs/impl.js": "exports.h = () => 2;\n",
        "src/cjs/index.js": "const impl = require('./impl');\nexports.h = impl.h;\n"
                            "exports.impl = impl;\n",
        "src/other.ts": "export const o = 3;\n",
        "test/a.test.ts": "import {g} from '../src';\n",
        "test/b.test.ts": "import {o} from '../src/other';\n",
        "test/c.test.js": "const {impl} = require('../src/cjs');\n"})
    tests = ["test/a.test.ts", "test/b.test.ts", "test/c.test.js"]
    is_test = tests.__contains__
    # core.ts: its importer helper.ts is re-exported by the index a.test.ts imports.
    assert importing_tests(root, ["src/core.ts"], is_test) == ["test/a.test.ts"]
    # impl.js: exports.impl = impl re-exports it (c), the index re-exports h's module (a).
    assert importing_tests(root, ["src/cjs/impl.js"], is_test) == ["test/a.test.ts",
                                                                   "test/c.test.js"]
    assert importing_tests(root, ["src/other.ts"], is_test) == ["test/b.test.ts"]
    assert importing_tests(root, ["test/b.test.ts"], is_test) == ["test/b.test.ts"]
