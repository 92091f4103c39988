"""Rust entities (warpline/lang/rust.py): loomweave's id dialect, spans, and the walker's
rules (DESIGN §3-4) on real git repositories."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pygit2
import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo, Gitlink, Symlink
from warpline.git.attribution import worktree_changes
from warpline.git.repo import open_repo
from warpline.lang import describe_locator, language_of
from warpline.lang.rust import module_name, read
from warpline.lang.snapshot import tree_locators

MANIFEST = '[package]\nname = "demo-crate"\nversion = "0.1.0"\nedition = "2021"\n'

LIB = """\
//! The demo crate.
pub mod shapes;

/// A point.
#[derive(Debug, Clone)]
pub struct Point<T> {
    pub x: T,
    pub y: T,
}

impl<T: Copy> Point<T> {
    /// Make one.
    pub fn new(x: T, y: T) -> Self {
        Point { x, y }
    }
}

pub trait Area {
    fn area(&self) -> f64;
    fn double(&self) -> f64 {
        self.area() * 2.0
    }
}

pub enum Color { Red, Green }

pub type Pair = (i32, i32);
pub const MAX: u32 = 10;
pub static NAME: &str = "demo";

#[macro_export]
macro_rules! square {
    ($x:expr) => { $x * $x };
}

pub fn square() -> i32 { 4 }

#[cfg(unix)]
pub fn platform() -> &'static str { "unix" }
#[cfg(windows)]
pub fn platform() -> &'static str { "windows" }

pub fn outer() -> i32 {
    fn inner() -> i32 { 1 }
    inner()
}

mod inline {
    pub mod deeper {
        pub fn f() {}
    }
    pub struct S;
    impl S { pub fn go(&self) {} }
}

impl<'a, K, V> std::fmt::Display for Wrapper<'a, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) }
}
pub struct Wrapper<'a, K, V>(&'a K, V);
impl<'a, K, V> Wrapper<'a, K, V> {
    fn get(&self) -> &V { &self.1 }
}
impl Point<f64> {
    fn norm(&self) -> f64 { 0.0 }
}
impl<T> From<u8> for Point<T> { fn from(v: u8) -> Self { todo!() } }
impl<T: Clone> std::fmt::Debug for Point<Vec<T>> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) }
}
impl<'a> Point<&'a str> { fn s(&self) {} }
impl Point<( i32 ,u8 )> { fn t(&self) {} }
impl dyn std::fmt::Debug { fn d(&self) {} }
#[cfg(feature = "pcre2")]
mod pc { pub fn p() {} }
#[cfg(not(feature = "pcre2"))]
mod pc { pub fn p() {} }
/** block doc */
#[inline]
pub(crate) async unsafe fn weird<'a>(x: &'a str)
    -> &'a str { x }
const _: () = ();
pub mod with_colon { pub fn r#type() {} }
impl<'de> serde::Deserialize<'de> for Color { fn deserialize() {} }
impl From<u8> for std::io::Error { fn from(v: u8) -> Self { todo!() } }
"""

SHAPES = """\
pub mod circle;
use crate::Area;

pub struct Shape { pub r: f64 }

impl Area for Shape {
    fn area(&self) -> f64 { self.r }
}

impl Area for Shape {
    fn extra() {}
}
"""

CRATE = {
    "Cargo.toml": MANIFEST,
    "src/lib.rs": LIB,
    "src/shapes/mod.rs": SHAPES,
    "src/shapes/circle.rs": "pub fn unit() -> f64 { 1.0 }\npub union U { a: u32, b: f32 }\n"
                            'extern "C" { fn c_fn(); }\n',
    "src/main.rs": "fn main() {}\n",
    "src/bin/tool.rs": "fn main() { let x = 1; }\n",
    "tests/it.rs": "#[test]\nfn t() {}\n",
    "build.rs": "fn main() {}\n",
}


class _Files:
    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read(self, path: str) -> bytes | None:
        text = self.files.get(path)
        return None if text is None else text.encode()


def _keys(source: str) -> dict[tuple[str, str], tuple[tuple[int, int], ...]]:
    parsed = read(source.encode())
    assert parsed is not None
    return {e.key: e.spans for e in parsed.entities}


def test_module_names_follow_the_crate_layout() -> None:
    files = _Files(CRATE)
    assert module_name("src/lib.rs", files) == "demo_crate"
    assert module_name("src/shapes/mod.rs", files) == "demo_crate.shapes"
    assert module_name("src/shapes/circle.rs", files) == "demo_crate.shapes.circle"
    # main.rs beside a lib.rs is a binary of its own; alone it is the crate.
    assert module_name("src/main.rs", files) == "demo_crate@bin(demo_crate)"
    assert module_name("src/main.rs", _Files({**CRATE, "src/lib.rs": None})) == "demo_crate"  # type: ignore[dict-item]
    assert module_name("src/bin/tool.rs", files) == "demo_crate@bin(tool)"
    # Outside src/ and outside any crate: warpline's extension, marked by '~'.
    assert module_name("tests/it.rs", files) == "demo_crate~tests.it"
    assert module_name("build.rs", files) == "demo_crate~build"
    assert module_name("fuzz/x.rs", _Files({})) == "~fuzz.x"
    # The nearest manifest with a [package] names the crate (a workspace root has none).
    workspace = _Files({"Cargo.toml": "[workspace]\nmembers = ['crates/*']\n",
                        "crates/core/Cargo.toml": '[package]\nname = "grep-core"\n'})
    assert module_name("crates/core/src/a/b.rs", workspace) == "grep_core.a.b"
    assert module_name("crates/core/tests/t.rs", workspace) == "grep_core~tests.t"
    assert module_name("crates/core/src/x.rs", _Files({"crates/core/Cargo.toml": "[pack"})) \
        == "~crates.core.src.x"


def test_kinds_names_and_spans() -> None:
    keys = _keys(LIB)
    assert keys[("struct", "Point")] == ((4, 9),)  # from its doc comment, over #[derive]
    assert keys[("impl", "Point<$0>.impl#<$0>")] == ((11, 16),)
    assert keys[("function", "Point<$0>.impl#<$0>.new")] == ((12, 15),)
    assert ("macro", "square") in keys and ("function", "square") in keys
    # @cfg only where siblings share the path.
    assert ("function", "platform@cfg(unix)") in keys
    assert ("module", "pc@cfg(feature=\"pcre2\")") in keys
    assert ("function", "pc@cfg(not(feature=\"pcre2\")).p") in keys
    assert ("impl", "Wrapper<$0,$1>.impl[Display]") in keys
    assert ("impl", "Wrapper<$0,$1>.impl#<$0,$1>") in keys
    assert ("impl", "Point<f64>.impl#<>") in keys
    assert ("impl", "Point<$0>.impl[From<u8>]") in keys
    assert ("impl", "Point<Vec<T>>.impl[Debug]") in keys
    assert ("impl", "Point<&'astr>.impl#<>") in keys
    assert ("impl", "Point<(i32,u8)>.impl#<>") in keys
    assert ("impl", "dynstd%3A%3Afmt%3A%3ADebug.impl#<>") in keys
    assert keys[("function", "weird")][0][0] == keys[("function", "weird")][0][0]
    assert ("function", "with_colon.r#type") in keys
    # A trait's lifetime arguments are dropped; a path self type is its last segment.
    assert ("impl", "Color.impl[Deserialize]") in keys
    assert ("impl", "Error.impl[From<u8>]") in keys
    assert not any(q == "_" for _, q in keys)
    # Where loomweave emits nothing: '~' segments.
    assert ("function", "Area.~trait.double") in keys
    assert ("function", "Area.~trait.area") in keys
    assert ("function", "outer.~fn.inner") in keys


def test_doc_comment_and_attributes_belong_to_the_item() -> None:
    parsed = read(b"fn a() {}\n\n/// doc\n// plain\n#[inline]\nfn b() {}\n")
    assert parsed is not None
    b = parsed.get("function", "b")
    assert b is not None and b.spans == ((3, 6),)
    assert parsed.owner_of_line(4).qualname == "b"


def test_a_syntax_error_keeps_the_intact_definitions() -> None:
    parsed = read(b"fn good() {}\n\nfn broken( {\n\nstruct Kept { a: u8 }\n"
                  b"fn also() -> u8 { 1 }\n")
    assert parsed is not None and parsed.tolerant
    assert {"good", "also", "Kept"} <= {q for _, q in parsed.keys()}
    assert read(b"}}}} ))) ((( fn\n" * 5) is None  # mostly errors: unreadable


def test_the_table_routes_rust_files() -> None:
    lang = language_of("src/lib.rs")
    assert lang is not None and lang.name == "rust"
    assert lang.wire_kind(("impl", "x")) == "class"
    assert lang.wire_kind(("macro", "x")) == "function"
    assert describe_locator("rust:impl:demo.Shape.impl[Area]") == ("rust", "impl")
    assert describe_locator("python:class:a.B") == ("python", "class")
    assert describe_locator("core:file:a.c") == (None, "file")
    assert language_of("a.c") is None and language_of("a.rs/b") is None


# -- the walker ----------------------------------------------------------------------------

_changes, _events = langwalk.changes, langwalk.events


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def test_add_modify_remove(repo: FixtureRepo) -> None:
    first = _events(_changes(repo, repo.commit(
        {"Cargo.toml": MANIFEST, "src/lib.rs": "pub fn a() -> u8 { 1 }\n\npub struct S;\n"})))
    assert first["rust:function:demo_crate.a"] == ("added", "function", None)
    assert first["rust:struct:demo_crate.S"] == ("added", "class", None)
    assert first["rust:module:demo_crate"] == ("added", "module", None)
    second = _events(_changes(repo, repo.commit(
        {"src/lib.rs": "pub fn a() -> u8 { 2 }\n\npub struct S;\n\nimpl S { fn m(&self) {} }\n"})))
    assert second == {
        "rust:function:demo_crate.a": ("modified", "function", None),
        "rust:impl:demo_crate.S.impl#<>": ("added", "class", None),
        "rust:function:demo_crate.S.impl#<>.m": ("added", "function", None),
    }
    third = _events(_changes(repo, repo.commit({"src/lib.rs": "pub struct S;\n"})))
    assert third["rust:function:demo_crate.a"][0] == "removed"
    assert third["rust:impl:demo_crate.S.impl#<>"][0] == "removed"
    assert "rust:struct:demo_crate.S" not in third


BODY = "\n".join(f"    let v{i} = {i} * x;" for i in range(6))


def test_a_function_moved_to_another_file_keeps_its_lineage(repo: FixtureRepo) -> None:
    fn = f"pub fn compute(x: u32) -> u32 {{\n{BODY}\n    v5\n}}\n"
    repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": "pub mod a;\npub mod b;\n",
                 "src/a.rs": fn + "\npub fn stay() {}\n", "src/b.rs": "pub fn other() {}\n"})
    moved = _events(_changes(repo, repo.commit({"src/a.rs": "pub fn stay() {}\n",
                                                "src/b.rs": "pub fn other() {}\n\n" + fn})))
    assert moved["rust:function:demo_crate.b.compute"] == (
        "moved", "function", "rust:function:demo_crate.a.compute")
    assert "rust:function:demo_crate.a.compute" not in moved


def test_an_impl_moved_between_modules_carries_its_methods(repo: FixtureRepo) -> None:
    block = f"impl Area for Shape {{\n    fn area(&self, x: u32) -> u32 {{\n{BODY}\n" \
            "        v5\n    }\n}\n"
    repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": "pub mod a;\npub mod b;\n",
                 "src/a.rs": "pub struct Shape;\n\n" + block, "src/b.rs": "pub fn b() {}\n"})
    moved = _events(_changes(repo, repo.commit({"src/a.rs": "pub struct Shape;\n",
                                                "src/b.rs": "pub fn b() {}\n\n" + block})))
    assert moved["rust:impl:demo_crate.b.Shape.impl[Area]"][::2] == (
        "moved", "rust:impl:demo_crate.a.Shape.impl[Area]")
    assert moved["rust:function:demo_crate.b.Shape.impl[Area].area"][::2] == (
        "moved", "rust:function:demo_crate.a.Shape.impl[Area].area")


def test_a_file_rename_carries_its_definitions(repo: FixtureRepo) -> None:
    repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": "pub mod old;\n",
                 "src/old.rs": f"pub fn f(x: u32) -> u32 {{\n{BODY}\n    v5\n}}\n"})
    moved = _events(_changes(repo, repo.commit({"src/lib.rs": "pub mod new;\n"},
                                               renames={"src/old.rs": "src/new.rs"})))
    assert moved["rust:function:demo_crate.new.f"] == (
        "moved", "function", "rust:function:demo_crate.old.f")
    assert moved["rust:module:demo_crate.new"][0] == "moved"


def test_a_syntax_error_commit_keeps_attribution_of_intact_definitions(
        repo: FixtureRepo) -> None:
    repo.commit({"Cargo.toml": MANIFEST,
                 "src/lib.rs": "pub fn a() -> u8 { 1 }\n\npub fn b() -> u8 { 2 }\n"})
    broken = _changes(repo, repo.commit(
        {"src/lib.rs": "pub fn a() -> u8 { 1 }\n\npub fn b() -> u8 { 3 }\n\nfn c( {\n"}))
    assert broken.unparsed_files == ()
    events = _events(broken)
    assert events["rust:function:demo_crate.b"][0] == "modified"
    assert "rust:function:demo_crate.a" not in events


def test_the_crate_name_comes_from_the_commits_own_manifest(repo: FixtureRepo) -> None:
    repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": "pub fn a() {}\n"})
    renamed = _events(_changes(repo, repo.commit(
        {"Cargo.toml": MANIFEST.replace("demo-crate", "renamed"),
         "src/lib.rs": "pub fn a() {}\npub fn b() {}\n"})))
    assert renamed["rust:function:renamed.b"][0] == "added"


def test_a_crate_renamed_in_its_manifest_carries_its_untouched_files(
        repo: FixtureRepo) -> None:
    repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": "pub mod shapes;\n",
                 "src/shapes.rs": "pub fn area() -> u8 { 1 }\n",
                 "src/vendored": Gitlink("1" * 40), "src/link.rs": Symlink("shapes.rs")})
    renamed = _events(_changes(repo, repo.commit(
        {"Cargo.toml": MANIFEST.replace("demo-crate", "renamed")})))
    assert renamed == {  # the submodule and the symlink are not read
        "rust:function:renamed.shapes.area": (
            "moved", "function", "rust:function:demo_crate.shapes.area"),
        "rust:module:renamed": ("moved", "module", "rust:module:demo_crate"),
        "rust:module:renamed.shapes": ("moved", "module", "rust:module:demo_crate.shapes")}
    bumped = _changes(repo, repo.commit(
        {"Cargo.toml": MANIFEST.replace("demo-crate", "renamed").replace("0.1.0", "0.2.0")}))
    assert _events(bumped) == {}


THREE = "pub fn one() -> u8 {\n    1\n}\n\npub fn two() -> u8 {\n    2\n}\n\n" \
        "pub fn three() -> u8 {\n    3\n}\n"


def test_a_merge_records_only_its_own_resolution(repo: FixtureRepo) -> None:
    base = repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": THREE})
    ours = repo.commit({"src/lib.rs": THREE.replace("    1", "    10")})
    theirs = repo.commit({"src/lib.rs": THREE.replace("    3", "    30")}, parents=[base],
                         update_head=False)
    both = THREE.replace("    1", "    10").replace("    3", "    30")
    clean = repo.merge_commit(ours, theirs, {"src/lib.rs": both})
    assert _events(_changes(repo, clean)) == {}  # the branches' edits are not the merge's
    evil = repo.merge_commit(ours, theirs, {"src/lib.rs": both.replace("    2", "    20")})
    assert _events(_changes(repo, evil)) == {
        "rust:function:demo_crate.two": ("modified", "function", None)}


def test_worktree_changes_name_rust_entities_by_the_work_trees_manifest(
        repo: FixtureRepo) -> None:
    repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": THREE})
    repo.write_worktree("src/lib.rs", THREE.replace("    2", "    22"))
    repo.write_worktree("src/extra.rs", "pub fn fresh() {}\n")
    events = {(c.locator, c.change_kind) for c in worktree_changes(open_repo(repo.path))}
    assert ("rust:function:demo_crate.two", "modified") in events
    assert ("rust:function:demo_crate.extra.fresh", "added") in events
    assert ("rust:function:demo_crate.one", "modified") not in events


# ``#[cfg]`` twins, rendered as loomweave-plugin-rust 1.6.1 renders them (read from its
# output on these sources; docs/languages.md "cfg suffixes"), unfaithful cases included.
CFG_TWINS = """\
#[cfg(all(unix, feature = "x"))]
pub fn f() {}
#[cfg(not(all(unix, feature = "x")))]
pub fn f() {}

#[cfg(any(windows, unix))]
pub fn g() {}
#[cfg(not(any(windows, unix)))]
pub fn g() {}

#[cfg(any(all(b, a), c))]
pub fn h() {}
#[cfg(not(any(all(b, a), c)))]
pub fn h() {}

#[cfg(all(feature = "zeta", feature = "alpha", any(target_os = "linux", target_os = "android")))]
pub fn k() {}
#[cfg(not(all(feature = "zeta", feature = "alpha")))]
pub fn k() {}

#[cfg(any(c, all(b, a)))]
pub fn m() {}
#[cfg(all(any(z, y), x))]
pub fn m() {}

pub struct S;
#[cfg(unix)]
impl S { pub fn u(&self) {} }
#[cfg(windows)]
impl S { pub fn w(&self) {} }
impl S { pub fn plain(&self) {} }

pub struct T2;
#[cfg(unix)]
impl T2 { pub fn a(&self) {} }
#[cfg(not(unix))]
impl T2 { pub fn a(&self) {} }

pub struct G<X>(X);
#[cfg(unix)]
impl<X> G<X> { pub fn a(&self) {} }
impl<X> G<X> { pub fn b(&self) {} }

pub trait Tr { fn t(&self); }
#[cfg(unix)]
impl Tr for S { fn t(&self) {} }
#[cfg(windows)]
impl Tr for S { fn t(&self) {} }

pub struct U;
#[cfg(unix)]
impl U { pub fn x(&self) {} }

pub struct V;
#[cfg(unix)]
#[cfg(feature = "q")]
pub fn two() {}
#[cfg(windows)]
pub fn two() {}

#[cfg_attr(docsrs, doc(cfg(unix)))]
#[cfg(unix)]
pub fn three() {}
#[cfg(windows)]
pub fn three() {}

#[cfg(unix)]
mod imp { pub fn i() {} }
#[cfg(windows)]
mod imp { pub fn i() {} }

pub struct W;
impl W { pub fn one(&self) {} }
impl W { pub fn two(&self) {} }
"""

CFG_MORE = """\
#[cfg(any(a, b))]
pub fn p1() {}
#[cfg(any(b,a))]
pub fn p1() {}

#[cfg(any(xa,  xb))]
pub fn p2() {}
#[cfg(all( zz , yy ))]
pub fn p2() {}

#[cfg(b)]
#[cfg(a)]
pub fn p3() {}
#[cfg(a)]
#[cfg(c)]
pub fn p3() {}

#[cfg(all(y, x))]
#[cfg(z)]
#[cfg(any(q,p))]
pub fn p4() {}
#[cfg(not(any(b, a)))]
pub fn p4() {}

#[cfg(any(
    feature = "x",
    all(a, b),
))]
pub fn p5() {}
#[cfg(all(not(b), a))]
pub fn p5() {}

#[cfg(feature = "a,b")]
pub fn p6() {}
#[cfg(any(feature = "a,b", c))]
pub fn p6() {}

#[cfg(unix)]
pub struct P7;
#[cfg(all(windows, target_env = "msvc"))]
pub struct P7;

#[cfg(any(Z, a))]
pub fn p8() {}
#[cfg(any(_b, a))]
pub fn p8() {}

#[cfg(test)]
mod tests { fn t() {} }

pub struct S;
#[cfg(unix)]
impl S { pub fn u(&self) {} }
#[cfg(unix)]
impl S { pub fn v(&self) {} }
#[cfg(windows)]
impl S { pub fn w(&self) {} }

pub struct R;
impl R { pub fn r1(&self) {} }
#[cfg(all(b, a))]
impl R { pub fn r2(&self) {} }

pub struct Q;
#[cfg(unix)]
impl Q { pub fn q1(&self) {} }
#[cfg(unix)]
impl Q { pub fn q2(&self) {} }

#[cfg(unix)]
pub fn solo() {}

#[cfg(unix)] pub fn same() {}
pub fn same() {}

pub struct Bd<W>(W);
impl<W: Clone> Bd<W> { pub fn c(&self) {} }
impl<W: Copy> Bd<W> { pub fn k(&self) {} }
"""


def test_cfg_suffixes_are_loomweaves_rendering() -> None:
    keys = set(_keys(CFG_TWINS)) | set(_keys(CFG_MORE))
    for key in [
        ("function", 'f@cfg(all(feature="x",unix))'),  # a top-level all()'s arguments sorted
        ("function", 'f@cfg(not(all(unix,feature="x")))'),  # not inside not()
        ("function", "h@cfg(any(a),all(b,c))"),  # split at every comma: nested all() broken
        ("function", 'p5@cfg(any(,all(a,b),feature="x"))'),  # a trailing comma
        ("function", 'p6@cfg(any(b",c,feature="a))'),  # a comma inside a string
        ("function", "p3@cfg(a&b)"),  # several #[cfg] attributes
        ("function", "p4@cfg(all(x,y)&any(p,q)&z)"),
        ("impl", "S.impl#<>@cfg(unix)"),  # impl twins are suffixed like any other item
        ("impl", "S.impl#<>@cfg(windows)"),
        ("function", "S.impl#<>@cfg(unix).v"),  # one id for two blocks of one cfg
        ("impl", "R.impl#<>"),  # the block without a cfg keeps the plain name
        ("impl", "R.impl#<>@cfg(all(a,b))"),
        ("impl", "S.impl[Tr]@cfg(unix)"),
        ("function", "p1@cfg(any(a,b))"),  # any(a, b) and any(b,a): one id, one entity
        ("function", "solo"),  # no twin: no suffix
    ]:
        assert key in keys, key
    assert ("impl", "U.impl#<>") in keys and ("impl", "W.impl#<>") in keys
    # inherent blocks with different bounds: one id (loomweave's), methods distinct
    assert {("impl", "Bd<$0>.impl#<$0>"), ("function", "Bd<$0>.impl#<$0>.c"),
            ("function", "Bd<$0>.impl#<$0>.k")} <= keys


# -- loomweave's own ids -------------------------------------------------------------------

@pytest.mark.loomweave
@pytest.mark.skipif(shutil.which("loomweave") is None
                    or shutil.which("loomweave-plugin-rust") is None,
                    reason="loomweave and its Rust plugin are not installed")
def test_every_id_equals_loomweaves(repo: FixtureRepo, tmp_path: Path) -> None:
    workspace = {"Cargo.toml": "[workspace]\nmembers = ['crates/*']\n",
                 **{f"crates/demo/{p}": t for p, t in CRATE.items()},
                 "crates/binonly/Cargo.toml": '[package]\nname = "bin-only"\n',
                 "crates/binonly/src/main.rs": "mod helper;\nfn main() {}\n",
                 "crates/binonly/src/helper.rs": "pub fn h() {}\n",
                 "crates/cfgs/Cargo.toml": '[package]\nname = "cfgs"\n',
                 "crates/cfgs/src/lib.rs": "mod more;\n" + CFG_TWINS,
                 "crates/cfgs/src/more.rs": CFG_MORE}
    repo.commit(dict(workspace))
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    subprocess.run(["loomweave", "install", "--path", str(repo.path)], env=env, check=True,
                   capture_output=True, timeout=120)
    subprocess.run(["loomweave", "analyze", "--no-sei", str(repo.path)], env=env,
                   check=True, capture_output=True, timeout=300, cwd=repo.path)
    db = sqlite3.connect(repo.path / ".weft" / "loomweave" / "loomweave.db")
    theirs = {row[0]: (row[1], row[2]) for row in db.execute(
        "select id, source_line_start, source_line_end from entities"
        " where plugin_id = 'rust'")}
    db.close()
    handle = pygit2.Repository(str(repo.path))
    ours = {loc for loc in tree_locators(handle, handle.head.peel(pygit2.Commit).tree)
            if loc.startswith("rust:") and "~" not in loc and not loc.startswith("rust:union:")}
    assert len(theirs) > 40
    assert sorted(ours ^ set(theirs)) == []
    # Spans too (a module's end is loomweave's own count, not compared).
    for path, text in workspace.items():
        if not path.endswith(".rs"):
            continue
        parsed = read(text.encode())
        assert parsed is not None
        module = module_name(path, _Files(workspace))
        assert module is not None
        for entity in parsed.entities:
            locator = f"rust:{entity.kind}:{module}" + (f".{entity.qualname}"
                                                        if entity.qualname else "")
            if locator in theirs and entity.kind != "module" and len(entity.spans) == 1:
                assert entity.spans[0] == theirs[locator], locator
