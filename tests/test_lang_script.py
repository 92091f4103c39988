"""TypeScript and JavaScript entities (warpline/lang/script.py): one ``ts:`` dialect, the
definitions JavaScript names by assignment, and a .js -> .ts migration keeping its ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo
from warpline.lang import describe_locator, language_of
from warpline.lang.script import module_name, read_javascript, read_tsx, read_typescript

ROUTER = """\
'use strict';

var methods = require('methods');

/**
 * Create a router.
 */
function Router(options) {
  var opts = options || {};
  return opts;
}

Router.prototype.route = function route(path) {
  return path;
};

exports.handle = function (req, res) {
  res.end();
};

module.exports = Router;

describe('router', function () {
  it('routes', function () {
    Router();
  });
});
"""

TYPED = """\
export function parse(input: string): number;
export function parse(input: number): number;
export function parse(input: any): number {
  return Number(input);
}

export class Box {
  @observed
  get size(): number { return 1; }
  set size(v: number) {}

  open(): void {}
}

export interface Options { retry: number }
export type Mode = 'a' | 'b';
export default () => 1;
"""


def _keys(parsed: object) -> dict[tuple[str, str], tuple[tuple[int, int], ...]]:
    assert parsed is not None
    return {e.key: e.spans for e in parsed.entities}  # type: ignore[attr-defined]


def test_modules_are_paths_without_extension_under_one_prefix() -> None:
    assert module_name("lib/router/index.js", None) == "lib/router/index"
    assert module_name("source/core/index.ts", None) == "source/core/index"
    ts, js, tsx = language_of("a.ts"), language_of("a.js"), language_of("a.tsx")
    assert ts is not None and js is not None and tsx is not None
    assert ts.prefix == js.prefix == tsx.prefix == "ts"
    assert describe_locator("ts:function:lib/a.f", "lib/a.js") == ("javascript", "function")
    assert describe_locator("ts:class:lib/a.B", "lib/a.tsx") == ("typescript", "class")


def test_javascript_definitions_named_by_assignment() -> None:
    keys = _keys(read_javascript(ROUTER.encode()))
    assert keys[("function", "Router")] == ((5, 11),)  # its JSDoc belongs to it
    assert ("function", "Router.route") in keys  # X.prototype.m
    assert ("function", "handle") in keys  # exports.f
    # Test bodies are anonymous callbacks: not entities (their lines are the module's).
    assert set(keys) == {("module", ""), ("function", "Router"), ("function", "Router.route"),
                         ("function", "handle")}


def test_overloads_and_accessor_pairs_are_one_entity() -> None:
    keys = _keys(read_typescript(TYPED.encode()))
    assert keys[("function", "parse")] == ((1, 1), (2, 2), (3, 5))
    assert keys[("method", "Box.size")] == ((8, 9), (10, 10))  # the decorator belongs
    assert ("interface", "Options") in keys and ("type", "Mode") in keys
    assert ("function", "default") in keys
    jsx = b"export class App { render() { return <div/>; } }\n"
    assert ("class", "App") in _keys(read_tsx(jsx))


_changes, _events = langwalk.changes, langwalk.events


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def test_a_js_to_ts_rename_keeps_every_id(repo: FixtureRepo) -> None:
    repo.commit({"source/router.js": ROUTER})
    migrated = ROUTER.replace("function Router(options) {", "function Router(options: any) {")
    changes = _changes(repo, repo.commit({"source/router.ts": migrated},
                                         renames={"source/router.js": "source/router.ts"}))
    events = _events(changes)
    assert events["ts:function:source/router.Router"][:2] == ("moved", "function")
    assert events["ts:function:source/router.Router"][2] == "ts:function:source/router.Router"
    moved = {c.locator: c for c in changes.changes if c.locator.startswith("ts:")}
    assert moved["ts:function:source/router.Router"].also_modified
    assert not moved["ts:function:source/router.handle"].also_modified
    assert all(c.change_kind == "moved" for c in moved.values())


def test_an_edit_marks_the_method_and_a_move_across_files_keeps_lineage(
        repo: FixtureRepo) -> None:
    repo.commit({"src/a.ts": TYPED, "src/b.ts": "export const x = 1;\n"})
    edited = _events(_changes(repo, repo.commit(
        {"src/a.ts": TYPED.replace("open(): void {}", "open(): void { this.size = 2; }")})))
    assert edited == {"ts:method:src/a.Box.open": ("modified", "function", None)}
    parse_fn = TYPED[:TYPED.index("export class")]
    moved = _events(_changes(repo, repo.commit({
        "src/a.ts": TYPED.replace(parse_fn, ""),
        "src/b.ts": "export const x = 1;\n\n" + parse_fn})))
    assert moved["ts:function:src/b.parse"] == ("moved", "function", "ts:function:src/a.parse")


def test_a_syntax_error_keeps_intact_definitions(repo: FixtureRepo) -> None:
    repo.commit({"src/a.ts": TYPED})
    broken = _changes(repo, repo.commit({"src/a.ts": TYPED.replace(
        "open(): void {}", "open(): void { return 2; }") + "\nfunction (( {\n"}))
    assert broken.unparsed_files == ()
    assert _events(broken)["ts:method:src/a.Box.open"][0] == "modified"


def test_nesting_deeper_than_recursion_allows_is_unreadable_not_a_crash() -> None:
    deep = "".join(f"function f{i}() {{\n" for i in range(3000)) + "}\n" * 3000
    assert read_javascript(deep.encode()) is None
    deep = "".join(f"function f{i}() {{\n" for i in range(150)) + "}\n" * 150
    assert read_javascript(deep.encode()) is None  # past MAX_DEPTH: painting would recurse
    shallow = "".join(f"function f{i}() {{\n" for i in range(50)) + "}\n" * 50
    assert read_javascript(shallow.encode()) is not None


def test_a_comment_after_code_on_the_line_above_is_not_a_nested_definitions(
        repo: FixtureRepo) -> None:
    # got's ``_write(…): void { // eslint-disable-line …`` with ``const write = () =>``
    # on the next line: the comment belongs to the method's header line, so editing it
    # modifies the method, not the nested definition.
    source = ("class Request {\n"
              "  _write(chunk: unknown): void { // eslint-disable-line ban-types\n"
              "    const write = (): void => {\n"
              "      this.push(chunk);\n"
              "    };\n"
              "    write();\n"
              "  }\n"
              "}\n")
    repo.commit({"src/index.ts": source})
    edited = _events(_changes(repo, repo.commit(
        {"src/index.ts": source.replace("ban-types", "no-restricted-types")})))
    assert edited == {"ts:method:src/index.Request._write": ("modified", "function", None)}
