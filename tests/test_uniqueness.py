"""One definition, one locator, per language (issue 35): no two definitions of one file
version share a key, except the documented groups (docs/languages.md). The corpora's
counts: ``bench/bench_uniqueness.py`` (0 outside the documented groups on every corpus)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from warpline.lang import GO, JAVA, JAVASCRIPT, PYTHON, RUST, TSX, TYPESCRIPT, Language
from warpline.lang.entities import EntityKey
from warpline.lang.script import overload_groups
from warpline.lang.snapshot import tree_locators


def _shared(lang: Language, source: str, groups: set[EntityKey] | None = None,
            ) -> dict[EntityKey, int]:
    found = lang.read(source.encode())
    assert found is not None
    return {key: n for key, n in found.counts.items() if n > 1 and key not in (groups or ())}


def _keys(lang: Language, source: str) -> set[EntityKey]:
    found = lang.read(source.encode())
    assert found is not None
    return set(found.counts)


SCRIPT = """\
export function parse(a: string): number;
export function parse(a: any): number { return 0; }
const table = { get: () => 1, nested: { get() { return 2; } } };
const other = { get: () => 3 };
describe('a', () => { function helper() {} it('x', () => helper()); });
describe('b', () => { function helper() {} });
export default flag ? { write() {} } : { write() {} };
class K { get v() { return 1; } set v(x) {} m(): void; m(a?: number): void {} }
"""


@pytest.mark.parametrize("lang", [TYPESCRIPT, TSX], ids=["ts", "tsx"])
def test_typescript_and_javascript_share_keys_only_in_overload_groups_and_accessor_pairs(
        lang: Language) -> None:
    groups = overload_groups(SCRIPT.encode(), "a.tsx" if lang is TSX else "a.ts")
    assert groups == {("function", "parse"), ("method", "K.v"), ("method", "K.m")}
    assert _shared(lang, SCRIPT, groups) == {}


def test_javascript_callbacks_and_stubs_share_no_key() -> None:
    source = ("exports.a = function () {};\nmodule.exports = { b() {}, c: () => 1 };\n"
              "describe('x', function () { var app = {}; app.get = function () {}; });\n"
              "describe('y', function () { var app = {}; app.get = function () {}; });\n"
              "Foo.prototype = { m() {} };\nFoo.prototype.m = function () {};\n")
    assert overload_groups(source.encode(), "a.js") == set()
    assert _shared(JAVASCRIPT, source) == {}


def test_python_shares_keys_only_for_a_property_and_its_accessors() -> None:
    source = ("from typing import overload\n"
              "class C:\n    @property\n    def x(self): pass\n"
              "    @x.setter\n    def x(self, v): pass\n"
              "    @overload\n    def f(self, a: int) -> int: ...\n"
              "    def f(self, a): return a\n")
    # @overload stubs are not counted; a getter and its setter are CPython's one name
    assert _shared(PYTHON, source) == {("function", "C.x"): 2}


def test_python_alternatives_and_rebindings_are_one_entity_as_cpython_binds_one_name(
        ) -> None:
    # Documented groups (docs/languages.md): definitions of one name in the branches of
    # one if/elif/else or try/except/else (only one exists at run time), and a later def
    # rebinding the name. CPython's qualname and loomweave's id are one name for both.
    alternatives = ("import sys\nif sys.version_info >= (3, 13):\n    def f(): return 1\n"
                    "elif sys.platform == 'x':\n    def f(): return 2\nelse:\n"
                    "    def f(): return 3\ntry:\n    import a\nexcept ImportError:\n"
                    "    def g(): pass\nelse:\n    def g(): pass\n")
    assert _shared(PYTHON, alternatives) == {("function", "f"): 3, ("function", "g"): 2}
    found = PYTHON.read(alternatives.encode())
    assert found is not None
    f = found.get("function", "f")
    assert f is not None and f.spans == ((3, 3), (5, 5), (7, 7))  # one entity, every branch
    assert _shared(PYTHON, "def h(): pass\ndef h(): return 1\n") == {("function", "h"): 2}


def test_go_methods_of_two_receivers_are_two_entities() -> None:
    source = "package a\nfunc (s *S) M() {}\nfunc (t T) M() {}\nfunc F() {}\n"
    assert _shared(GO, source) == {}


def test_go_init_functions_of_one_file_are_one_entity() -> None:
    # Documented group: init functions are not declared in the package scope (nothing
    # can name or call one); the file's init code is one entity owning each one's lines.
    found = GO.read(b"package a\nfunc init() {}\nfunc F() {}\nfunc init() {}\n")
    assert found is not None
    assert {k: n for k, n in found.counts.items() if n > 1} == {("function", "init"): 2}
    init = found.get("function", "init")
    assert init is not None and init.spans == ((2, 2), (4, 4))


def test_java_overloads_are_separate_entities_by_parameter_types() -> None:
    source = ("package p;\nclass A {\n  void f(int a) {}\n  void f(String a) {}\n"
              "  A() {}\n  A(int a) {}\n  class B { void f(int a) {} }\n}\n")
    assert _shared(JAVA, source) == {}


def test_java_overloads_on_same_named_types_of_two_packages_are_separate() -> None:
    source = ("package p;\nclass A {\n  void f(a.X x) {}\n  void f(b.X x) {}\n}\n")
    assert _shared(JAVA, source) == {}
    assert _keys(JAVA, source) >= {("method", "A.f(a.X)"), ("method", "A.f(b.X)")}


def test_java_colliding_overloads_read_their_types_through_the_imports() -> None:
    # junit4's TestWatcher.skipped: one simple name imported, the other written qualified.
    source = ("package p;\nimport org.junit.AssumptionViolatedException;\n"
              "import org.junit.runner.Description;\nclass W {\n"
              "  void skipped(AssumptionViolatedException e, Description d) {}\n"
              "  void skipped(org.junit.internal.AssumptionViolatedException e,"
              " Description d) {}\n"
              "  void other(java.util.List<String> a, int b) {}\n}\n")
    assert _shared(JAVA, source) == {}
    assert _keys(JAVA, source) == {
        ("class", "W"),
        # only the position that tells them apart is qualified
        ("method", "W.skipped(org.junit.AssumptionViolatedException,Description)"),
        ("method", "W.skipped(org.junit.internal.AssumptionViolatedException,Description)"),
        ("method", "W.other(List,int)"),  # no twin: today's simple names
    }


def test_rust_impls_of_two_traits_and_methods_are_separate_entities() -> None:
    source = ("struct S;\nimpl A for S { fn f(&self) {} }\nimpl B for S { fn f(&self) {} }\n"
              "impl S { fn g(&self) {} }\nfn g() {}\n")
    assert _shared(RUST, source) == {}


def test_rust_inherent_impl_blocks_of_one_type_are_one_entity_their_methods_distinct(
        ) -> None:
    # Documented group: loomweave-plugin-rust gives every inherent impl block of one self
    # type (bounds aside) one id (tests/test_lang_rust.py compares with the real plugin);
    # Rust forbids one method name in two of them, so the methods stay distinct.
    source = ("struct S<W>(W);\nimpl<W: A> S<W> { fn f(&self) {} }\n"
              "impl<W: B> S<W> { fn g(&self) {} }\n")
    found = RUST.read(source.encode())
    assert found is not None
    assert {k: n for k, n in found.counts.items() if n > 1} == {("impl", "S<$0>.impl#<$0>"): 2}
    assert found.counts[("function", "S<$0>.impl#<$0>.f")] == 1
    assert found.counts[("function", "S<$0>.impl#<$0>.g")] == 1


PY_GROUPS = """\
import sys

if sys.version_info >= (3, 13):
    def chain(x):
        return 1
else:
    def chain(x):
        return 2

try:
    import foo
except ImportError:
    def fallback():
        return 1
else:
    def fallback():
        return 2


def plain():
    return 1


def plain():
    return 2


class K:
    if sys.platform == "win32":
        def m(self):
            return 1
    else:
        def m(self):
            return 2
"""


@pytest.mark.loomweave
@pytest.mark.skipif(shutil.which("loomweave") is None
                    or shutil.which("loomweave-plugin-python") is None,
                    reason="loomweave and its Python plugin are not installed")
def test_python_groups_have_loomweaves_one_id(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"demo/__init__.py": "", "demo/mod.py": PY_GROUPS})
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "LOOMWEAVE_PYTHON_INTERPRETER": sys.executable}
    subprocess.run(["loomweave", "install", "--path", "."], env=env, check=True,
                   capture_output=True, timeout=120, cwd=repo.path)
    subprocess.run(["loomweave", "analyze", "--no-sei"], env=env, check=True,
                   capture_output=True, timeout=300, cwd=repo.path)
    db = sqlite3.connect(repo.path / ".weft" / "loomweave" / "loomweave.db")
    theirs = {row[0] for row in db.execute(
        "select id from entities where plugin_id = 'python' and kind != 'module'")}
    db.close()
    handle = pygit2.Repository(str(repo.path))
    ours = {loc for loc in tree_locators(handle, handle.head.peel(pygit2.Commit).tree)
            if loc.startswith("python:") and not loc.startswith("python:module:")}
    assert ours == theirs
    assert "python:function:demo.mod.chain" in ours and "python:function:demo.mod.K.m" in ours
