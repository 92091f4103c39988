"""TypeScript/JavaScript naming (issue 35 items 1-3, docs/languages.md): one entity per
definition, object-literal members named through their object, no name risen out of an
anonymous callback into another definition's, and one module per file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo
from warpline.git.attribution import worktree_changes
from warpline.git.repo import open_repo
from warpline.lang.entities import FileEntities
from warpline.lang.script import module_name, read_javascript, read_typescript

Keys = dict[tuple[str, str], tuple[tuple[int, int], ...]]


def _keys(parsed: FileEntities | None) -> Keys:
    assert parsed is not None
    return {e.key: e.spans for e in parsed.entities}


def _shared(parsed: FileEntities | None) -> dict[tuple[str, str], int]:
    """Keys with more than one occurrence (overload groups and get/set pairs only)."""
    return {key: len(spans) for key, spans in _keys(parsed).items() if len(spans) > 1}


ZOD = """\
export const ZodType = core.$constructor("ZodType", (inst, def) => {
  inst._zod.processJSONSchema = (ctx, json) => toJSON(inst, ctx, json);
  inst.parse = (data) => parse(inst, data);
});

export const ZodString = core.$constructor("ZodString", (inst, def) => {
  inst._zod.processJSONSchema = (ctx, json) => stringJSON(inst, ctx, json);
});
"""


def test_callback_definitions_are_named_through_their_binding_not_hoisted() -> None:
    keys = _keys(read_typescript(ZOD.encode()))
    assert ("function", "ZodType.inst._zod.processJSONSchema") in keys
    assert ("function", "ZodString.inst._zod.processJSONSchema") in keys
    assert ("function", "ZodType.inst.parse") in keys
    assert not any(q.startswith("inst.") for _, q in keys)
    assert _shared(read_typescript(ZOD.encode())) == {}


LITERALS = """\
const inst = {
  a() { return 1; },
  e: { f() { return 2; } },
};
module.exports = { g() { return 3; } };
Foo.prototype = { m() { return 4; } };
"""


def test_object_literal_members_are_named_through_their_object() -> None:
    keys = _keys(read_javascript(LITERALS.encode()))
    assert ("method", "inst.a") in keys
    assert ("method", "inst.e.f") in keys  # nested literals: through each key
    assert ("method", "g") in keys  # module.exports = {…}: like exports.g =
    assert ("method", "Foo.m") in keys  # Foo.prototype = {…}: like Foo.prototype.m =
    ts = _keys(read_typescript(b"export default { h() { return 1; } };\n"))
    assert ("method", "default.h") in ts


STUB = """\
export default isBrowser ?
  {
    write(name, value) {
      document.cookie = name + '=' + value;
    },
    read(name) {
      return document.cookie;
    },
  }
  :
  {
    write() {},
    read() {
      return null;
    },
  };
"""


def test_an_implementation_and_its_no_op_stub_are_two_entities() -> None:
    keys = _keys(read_javascript(STUB.encode()))
    assert keys[("method", "default.write")] == ((3, 5),)
    assert keys[("method", "default.write~2")] == ((12, 12),)
    assert keys[("method", "default.read~2")] == ((13, 15),)


TESTS = """\
describe('a', function () {
  function helper() { return 1; }
  it('x', function () { helper(); });
});
describe('b', function () {
  function helper() { return 2; }
  function helper() { return 3; }
});
"""


def test_colliding_definitions_get_an_ordinal_in_source_order() -> None:
    keys = _keys(read_javascript(TESTS.encode()))
    assert keys[("function", "helper")] == ((2, 2),)
    assert keys[("function", "helper~2")] == ((6, 6),)
    assert keys[("function", "helper~3")] == ((7, 7),)
    nested = _keys(read_javascript(
        b"function f() { function g() {} }\nfunction f() { function g() {} }\n"))
    assert ("function", "f~2.g") in nested and ("function", "f.g") in nested


GROUPS = """\
export function parse(input: string): number;
export function parse(input: number): number;
export function parse(input: any): number {
  return Number(input);
}
export function parse(again: any): number { return 0; }
declare function ambient(a: string): void;
declare function ambient(a: number): void;
export class Box {
  get size(): number { return 1; }
  set size(v: number) {}
  open(a: string): void;
  open(a: any): void {}
}
"""


def test_overload_groups_and_accessor_pairs_stay_one_entity_and_nothing_else_does() -> None:
    parsed = read_typescript(GROUPS.encode())
    keys = _keys(parsed)
    assert keys[("function", "parse")] == ((1, 1), (2, 2), (3, 5))
    assert keys[("function", "parse~2")] == ((6, 6),)  # after the implementation: another
    assert _shared(parsed) == {("function", "parse"): 3, ("function", "ambient"): 2,
                               ("method", "Box.size"): 2, ("method", "Box.open"): 2}


GAPS = """\
exports.cast = ((value) => value) as any;
let plain;
plain = ((value) => value) as any;
const checked = (function (x: number) { return x; }) satisfies Check;
const wrapped = (() => 1);
const table = {
  k: () => 1,
  'l-m': function () { return 2; },
};
class K {
  field = () => 3;
  static make = function () { return new K(); };
}
export default enabled && function named() { return 4; };
"""


def test_wrapped_functions_properties_and_fields_are_entities() -> None:
    keys = _keys(read_typescript(GAPS.encode()))
    assert ("function", "cast") in keys  # `x = (…) as any`
    assert ("function", "plain") in keys
    assert ("function", "checked") in keys  # satisfies
    assert ("function", "wrapped") in keys  # parenthesised
    assert ("method", "table.k") in keys  # { k: () => … } like { k() {} }
    assert ("method", "table.l-m") in keys  # a string key, as written
    assert ("method", "K.field") in keys  # a class-field arrow
    assert ("method", "K.make") in keys
    assert ("function", "default.named") in keys  # export default cond && function f
    js = _keys(read_javascript(b"class K { field = () => 3; }\n"))
    assert ("method", "K.field") in js


class _Tree:
    def __init__(self, paths: set[str]) -> None:
        self.paths = paths

    def read(self, path: str) -> bytes | None:
        return b"" if path in self.paths else None


def test_a_file_beside_a_sibling_of_its_stem_keeps_its_suffix_in_its_module() -> None:
    alone = _Tree({"lib/X.js"})
    assert module_name("lib/X.js", alone) == "lib/X"  # no collision possible: unchanged
    both = _Tree({"lib/X.ts", "lib/X.cts", "lib/X.mts", "lib/X.js", "lib/X.d.ts",
                  "lib/X.d.cts"})
    names = {path: module_name(path, both) for path in sorted(both.paths)}
    assert names == {"lib/X.ts": "lib/X", "lib/X.mts": "lib/X.mts", "lib/X.cts": "lib/X.cts",
                     "lib/X.js": "lib/X.js", "lib/X.d.ts": "lib/X.d",
                     "lib/X.d.cts": "lib/X.d.cts"}
    assert len(set(names.values())) == len(names)


_changes, _events = langwalk.changes, langwalk.events


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def test_a_class_renamed_in_an_index_d_cts_beside_index_d_ts_is_an_event(
        repo: FixtureRepo) -> None:
    repo.commit({"types/index.d.ts": "export declare class Got {}\n",
                 "types/index.d.cts": "declare class Got {}\nexport = Got;\n"})
    events = _events(_changes(repo, repo.commit(
        {"types/index.d.cts": "declare class Gotten {}\nexport = Gotten;\n"})))
    assert events["ts:class:types/index.d.cts.Gotten"][0] in ("added", "moved")
    assert all(not loc.startswith("ts:class:types/index.d.Got") for loc in events)


def test_a_sibling_added_beside_a_file_moves_that_files_definitions(
        repo: FixtureRepo) -> None:
    repo.commit({"lib/x.js": "function f() { return 1; }\n"})
    events = _events(_changes(repo, repo.commit(
        {"lib/x.ts": "export function g(): number { return 1; }\n"})))
    assert events["ts:function:lib/x.g"][0] == "added"
    assert events["ts:function:lib/x.js.f"] == ("moved", "function", "ts:function:lib/x.f")



def test_computed_and_string_method_names_cannot_read_as_nesting() -> None:
    keys = _keys(read_typescript(
        b"class A {\n  [Symbol.iterator]() {}\n  'a-b'() {}\n  'x.y'() {}\n}\n"))
    assert {q for _, q in keys} == {"", "A", "A.[Symbol%2Eiterator]", "A.a-b", "A.x%2Ey"}


def test_a_sibling_added_in_the_work_tree_moves_that_files_definitions(
        repo: FixtureRepo) -> None:
    repo.commit({"lib/x.js": "function f() { return 1; }\n"})
    (repo.path / "lib" / "x.ts").write_text("export function g(): number { return 1; }\n")
    found = {c.locator: (c.change_kind, c.previous_locator)
             for c in worktree_changes(open_repo(repo.path))}
    assert found["ts:function:lib/x.g"][0] == "added"
    assert found["ts:function:lib/x.js.f"] == ("moved", "ts:function:lib/x.f")
