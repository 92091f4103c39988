"""The built-in TypeScript/JavaScript edges (graph/builtin/script*.py) on a fixture
repository whose edges are written out by hand: ES imports, require, re-exports, index
files, tsconfig paths, calls, type references, inheritance, this.m(), test -> code, and
a candidate edge where a name cannot be resolved to one definition."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pygit2

from tests.gitfixture import FixtureRepo
from warpline.graph.builtin import capture_builtin
from warpline.graph.graph import graph_from_capture
from warpline.graph.model import EdgeCapture
from warpline.service.impact import edge_basis

FILES = {
    "tsconfig.json": '{\n  // comments allowed\n  "compilerOptions": {"baseUrl": ".",\n'
                     '    "paths": {"@core/*": ["src/core/*"]},}\n}\n',
    "src/core/shape.ts": """\
export interface Area { area(): number }

export class Shape implements Area {
  area(): number { return 0; }
  describe(): string { return `area ${this.area()}`; }
}

export function unit(): Shape { return new Shape(); }
""",
    "src/core/index.ts": "export * from './shape';\nexport { helper as aid } from './help';\n",
    "src/core/help.ts": "export function helper(s: string): string { return s; }\n",
    "src/square.ts": """\
import { Shape, unit } from './core';
import { aid } from '@core/index';
import * as core from './core/index';

export class Square extends Shape {
  area(): number { return aid('x').length + unit().area(); }
  twice(s: Shape): number { return core.unit().area() + s.describe().length; }
}

export function guess(thing: any): number { return thing.describe(); }
""",
    "lib/legacy.js": """\
var helper = require('../src/core/help.js').helper;
var shape = require('./shape-legacy');

exports.run = function run() { return helper('y') + shape.draw(); };
""",
    "lib/shape-legacy.js": "exports.draw = function draw() { return 1; };\n",
    "test/square.test.ts": """\
import { Square } from '../src/square';

describe('square', () => {
  it('has an area', () => { new Square().area(); });
});
""",
}


def _capture(tmp_path: Path) -> EdgeCapture:
    repo = FixtureRepo(tmp_path / "repo")
    sha = repo.commit(dict(FILES))
    return capture_builtin(repo.repo, repo.repo[sha].peel(pygit2.Commit))


def test_typescript_and_javascript_edges_resolve_through_imports_and_scopes(
        tmp_path: Path) -> None:
    capture = _capture(tmp_path)
    edges: dict[tuple[str, str, str], str | None] = {
        (e.source_locator, e.target_locator, e.kind): e.confidence for e in capture.edges}
    expected = {
        # ES import through an index file's export *; `new` is a call of the class
        ("ts:method:src/square.Square.area", "ts:function:src/core/shape.unit", "calls"),
        # a re-export under another name, through a tsconfig path
        ("ts:method:src/square.Square.area", "ts:function:src/core/help.helper", "calls"),
        # import * as ns: a member of the module
        ("ts:method:src/square.Square.twice", "ts:function:src/core/shape.unit", "calls"),
        # a parameter's declared type: its method
        ("ts:method:src/square.Square.twice", "ts:method:src/core/shape.Shape.describe",
         "calls"),
        # a type reference
        ("ts:method:src/square.Square.twice", "ts:class:src/core/shape.Shape", "references"),
        # inheritance and implementation are references from the class
        ("ts:class:src/square.Square", "ts:class:src/core/shape.Shape", "references"),
        ("ts:class:src/core/shape.Shape", "ts:interface:src/core/shape.Area", "references"),
        # this.m()
        ("ts:method:src/core/shape.Shape.describe", "ts:method:src/core/shape.Shape.area",
         "calls"),
        # a return type and `new`
        ("ts:function:src/core/shape.unit", "ts:class:src/core/shape.Shape", "calls"),
        # require(...).name and a required module's member
        ("ts:function:lib/legacy.run", "ts:function:src/core/help.helper", "calls"),
        ("ts:function:lib/legacy.run", "ts:function:lib/shape-legacy.draw", "calls"),
        # test -> code: an `it` body's uses are its test file's module's
        ("ts:module:test/square.test", "ts:class:src/square.Square", "calls"),
    }
    missing = expected - set(edges)
    assert not missing
    assert all(edges[key] == "resolved" for key in expected)


def test_a_call_on_a_value_of_unknown_type_is_a_candidate_edge_never_a_certain_one(
        tmp_path: Path) -> None:
    capture = _capture(tmp_path)
    guessed = {(e.target_locator, e.confidence) for e in capture.edges
               if e.source_locator == "ts:function:src/square.guess"}
    assert guessed == {("ts:method:src/core/shape.Shape.describe", "candidate")}


def test_every_file_and_definition_is_an_entity_of_the_capture(tmp_path: Path) -> None:
    capture = _capture(tmp_path)
    locators = {e.locator for e in capture.entities}
    assert {"core:file:src/square.ts", "ts:module:src/square", "ts:class:src/square.Square",
            "ts:method:src/square.Square.twice", "ts:function:lib/legacy.run"} <= locators
    assert capture.failed_entities == ()


def _cli(repo: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "NO_COLOR": "1", "WARPLINE_EDGE_SOURCES": "builtin",
           "WARPLINE_INTERACTIVE_BUDGET_S": "30"}
    done = subprocess.run([sys.executable, "-m", "warpline.cli", *args, "--repo", str(repo),
                           "--json"], capture_output=True, text=True, timeout=300, env=env,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_reverify_and_blast_radius_over_typescript_report_its_dependents(
        tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit(dict(FILES), message="one")
    repo.commit({"src/core/help.ts": FILES["src/core/help.ts"].replace("return s;",
                                                                       "return s + s;")},
                message="two")
    for tool in ("reverify", "blast-radius"):
        answer = _cli(repo.path, tool, "HEAD~1..HEAD")
        data = answer["data"]
        found = {i["entity"]["locator"] for i in data.get("items", data.get("affected", []))}
        if tool == "reverify":
            assert "ts:function:src/core/help.helper" in found
        # its callers, across a re-export, a tsconfig path and a require
        assert {"ts:method:src/square.Square.area", "ts:function:lib/legacy.run"} <= found, tool
        assert not any("typescript" in w and "not absent" in w for w in answer["warnings"])


def test_an_answer_over_candidate_edges_counts_them_in_its_basis(tmp_path: Path) -> None:
    capture = _capture(tmp_path)
    graph = graph_from_capture(capture)
    count = sum(1 for e in capture.edges if e.confidence == "candidate")
    assert count > 0 and edge_basis.candidate_edges(graph) == count
    view = edge_basis.basis_for_view({}, len(capture.edges), "FULL", count)
    assert str(count) in view["meaning"]


def _edges_of(tmp_path: Path, path: str, source: str) -> set[tuple[str, str, str]]:
    repo = FixtureRepo(tmp_path / "repo")
    sha = repo.commit({path: source})
    capture = capture_builtin(repo.repo, repo.repo[sha].peel(pygit2.Commit))
    return {(e.source_locator, e.target_locator, e.kind) for e in capture.edges}


def test_a_value_never_names_a_type_alias_of_its_name(tmp_path: Path) -> None:
    edges = _edges_of(tmp_path, "a.ts", (
        "type Error = { code: string };\n"
        "export function fail(e: Error): never { throw new Error(e.code); }\n"))
    # the annotation names the alias; `new Error` is the global constructor
    assert edges == {("ts:function:a.fail", "ts:type:a.Error", "references")}


def test_a_use_on_the_line_a_named_callback_starts_is_not_the_callbacks(
        tmp_path: Path) -> None:
    edges = _edges_of(tmp_path, "a.js", ("function fn1() { return 1; }\n"
                                         "app.use(fn1, function fn3() { return fn1(); });\n"))
    assert edges == {("ts:module:a", "ts:function:a.fn1", "references"),
                     ("ts:function:a.fn3", "ts:function:a.fn1", "calls")}


def test_an_unreadable_file_keeps_its_entities_and_makes_the_capture_partial(
        tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    sha = repo.commit({"ok.ts": "export function f(): number { return 1; }\n",
                       "broken.ts": ")))) ((((\n" * 20})
    capture = capture_builtin(repo.repo, repo.repo[sha].peel(pygit2.Commit))
    assert capture.failed_entities == (("ts:module:broken", "syntax_error"),)
    assert {"core:file:broken.ts", "ts:module:broken", "ts:function:ok.f"} <= {
        e.locator for e in capture.entities}


def test_a_member_of_a_calls_value_resolves_through_the_declared_return_type(
        tmp_path: Path) -> None:
    edges = _edges_of(tmp_path, "a.ts", (
        "class Duration {\n  get(unit: string): number { return 1; }\n}\n"
        "class DateTime {\n"
        "  /** @return {Duration} */\n  until(other) { return new Duration(); }\n"
        "  static now(): DateTime { return new DateTime(); }\n}\n"
        "function span() {\n  const dt = DateTime.now();\n"
        "  return dt.until(dt).get('days');\n}\n"))
    # a JSDoc @return and a TypeScript return type, through a call and a binding
    assert {("ts:function:a.span", "ts:method:a.DateTime.now", "calls"),
            ("ts:function:a.span", "ts:method:a.DateTime.until", "calls"),
            ("ts:function:a.span", "ts:method:a.Duration.get", "calls")} <= edges
