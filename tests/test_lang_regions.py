"""Edited regions (warpline/lang/tsregions.py): a version read from its predecessor's
tree and records, re-querying only where the edit reached, reads exactly as a whole
read of the same source, in every tree-sitter language; and a real git history walked
with regions on and off gives identical events."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.hunks import hunks_and_lines
from warpline.git.repo import open_repo, resolve_commit
from warpline.lang import golang, java, rust, script, tsregions
from warpline.lang.entities import FileEntities, split_lines
from warpline.lang.tsdefs import Edit

Reader = Callable[[bytes, Edit | None], FileEntities | None]


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    tsregions.clear()
    yield
    tsregions.EDITED_REGIONS = True
    tsregions.clear()


def _reading(fe: FileEntities | None) -> object:
    if fe is None:
        return None
    return (fe.entities, sorted(fe.counts.items()), fe.line_count, fe.tolerant,
            fe.paint(1, fe.line_count))


def _check(read: Reader, old_text: str, new_text: str, regions: bool = True) -> None:
    """``new`` read from ``old``'s tree equals ``new`` read whole; ``regions``: the edit
    was re-read in regions (not whole)."""
    old, new = old_text.encode(), new_text.encode()
    old_lines = split_lines(old)
    hunks, lines = hunks_and_lines(old, new, old_lines)
    assert lines is not None
    tsregions.clear()
    assert read(old, None) is not None
    before = dict(tsregions.stats)
    derived = read(new, Edit(old, old_lines, lines, hunks))
    if regions:
        assert tsregions.stats["regions"] == before["regions"] + 1
    tsregions.clear()
    whole = read(new, None)
    assert _reading(derived) == _reading(whole)


RUST = """\
//! crate docs
use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point { x: i32 }

impl Point {
    /// Make one.
    pub fn new(x: i32) -> Self {
        Point { x }
    }

    pub fn x(&self) -> i32 {
        self.x
    }
}

#[cfg(unix)]
fn os() -> u8 { 1 }

#[cfg(windows)]
fn os() -> u8 { 2 }

extern "C" {
    static ERRNO: i32;
}

extern "system" {
    fn abs(x: i32) -> i32;
}

trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> String { String::new() }
}

mod inner {
    pub fn helper() {
        fn nested() {}
    }
}
"""

RUST_EDITS = {
    "a body": ("self.x\n", "self.x + 1\n"),
    "a name": ("pub fn x(&self)", "pub fn y(&self)"),
    "a doc line above": ("    pub fn x(&self)", "    /// The x.\n    pub fn x(&self)"),
    "an attribute above": ("fn os() -> u8 { 2 }", "#[inline]\nfn os() -> u8 { 2 }"),
    "a cfg twin removed": ("#[cfg(windows)]\nfn os() -> u8 { 2 }\n", ""),
    "a definition inserted": ("mod inner {", "fn added() {}\n\nmod inner {"),
    "a definition removed": ("    pub fn x(&self) -> i32 {\n        self.x\n    }\n", ""),
    "a nested fn renamed": ("fn nested() {}", "fn nested2() {}"),
    "an impl made a trait": ("impl Point {", "trait Point {"),
    "a trait made an impl": ("trait Shape {", "impl Shape {"),
    "an impl with a signature made a trait": ("impl Point {\n", "trait Point {\n    fn z();\n"),
    "an extern block made a module": ('extern "C" {', "mod ffi {"),
    "a signature block made a trait": ('extern "system" {', "trait Ffi {"),
    "a broken brace": ("        Point { x }\n    }\n", "        Point { x }\n"),
    "a syntax error": ("fn os() -> u8 { 1 }", "fn os( -> u8 { 1 }"),
    "a block comment opened": ("use std::fmt;", "use std::fmt; /*"),
    "the first line": ("//! crate docs\n", ""),
    "the last line": ("nested() {}\n    }\n}\n", "nested() {}\n    }\n}\nfn end() {}"),
}


@pytest.mark.parametrize("edit", sorted(RUST_EDITS))
def test_a_rust_edit_reads_as_a_whole_read(edit: str) -> None:
    old, new = RUST_EDITS[edit]
    assert old in RUST
    _check(rust.read, RUST, RUST.replace(old, new, 1))


def test_a_fixed_syntax_error_reads_as_a_whole_read() -> None:
    broken = RUST.replace("fn os() -> u8 { 1 }", "fn os( -> u8 { 1 }")
    _check(rust.read, broken, RUST)


def test_records_outside_the_edit_are_kept() -> None:
    source = RUST.encode()
    edited = RUST.replace("self.x\n", "self.x + 1\n").encode()
    lines = split_lines(source)
    hunks, new_lines = hunks_and_lines(source, edited, lines)
    assert new_lines is not None
    rust.read(source, None)
    kept, read = tsregions.stats["kept"], tsregions.stats["read"]
    rust.read(edited, Edit(source, lines, new_lines, hunks))
    assert tsregions.stats["kept"] - kept >= 8  # the struct, the trait, the module …
    # the method, what holds it, the item after it (its leading attributes end there)
    assert tsregions.stats["read"] - read <= 4


GO = """\
package demo

// Point is a point.
type Point struct{ X int }

type (
	A int
	B string
)

// New makes one.
func New(x int) *Point {
	return &Point{X: x}
}

func (p *Point) Get() int { return p.X }

func (p Point) Set(x int) { p.X = x }
"""

GO_EDITS = {
    "a body": ("return &Point{X: x}", "return &Point{X: x + 1}"),
    "a doc comment removed": ("// New makes one.\n", ""),
    "a blank line under a comment": ("// New makes one.\n", "// New makes one.\n\n"),
    "a receiver made a value": ("func (p *Point) Get()", "func (p Point) Get()"),
    "a group split": ("\tB string\n", ""),
    "a definition inserted": ("func (p Point) Set", "func Other() {}\n\nfunc (p Point) Set"),
    "a syntax error": ("func New(x int)", "func New(x int"),
}


@pytest.mark.parametrize("edit", sorted(GO_EDITS))
def test_a_go_edit_reads_as_a_whole_read(edit: str) -> None:
    old, new = GO_EDITS[edit]
    assert old in GO
    _check(golang.read, GO, GO.replace(old, new, 1))


JAVA = """\
package demo;

/** A shape. */
public class Shape {
    /** Its area. */
    public double area() { return 0; }

    public double area(int scale) { return scale; }

    private final Runnable task = new Runnable() {
        public void run() {}
    };

    static class Inner {
        Inner(String name) {}
    }

    enum Kind { ROUND { void spin() {} }, FLAT }
}
"""

JAVA_EDITS = {
    "a body": ("return scale;", "return scale * 2;"),
    "an overload's parameter": ("area(int scale)", "area(long scale)"),
    "an anonymous class made named": ("new Runnable() {", "new Object(); class Task {"),
    "a javadoc removed": ("    /** Its area. */\n", ""),
    "an inner class renamed": ("class Inner {\n        Inner(", "class Outer {\n        Outer("),
    "a method inserted": ("    static class", "    void added() {}\n\n    static class"),
    "a syntax error": ("public double area() { return 0; }", "public double area() { return 0; "),
    "the class header": ("public class Shape {", "public class Shape implements Cloneable {"),
}


@pytest.mark.parametrize("edit", sorted(JAVA_EDITS))
def test_a_java_edit_reads_as_a_whole_read(edit: str) -> None:
    old, new = JAVA_EDITS[edit]
    assert old in JAVA
    _check(java.read, JAVA, JAVA.replace(old, new, 1))


SCRIPT = """\
'use strict';

/**
 * Make an app.
 */
function createApp() {
  return {};
}

exports.listen = function listen(port) {
  return port;
};

App.prototype.get = function (path) {
  return path;
};

const helper = () => 1, other = 2;

class Router {
  @route('/')
  index() { return 1; }

  get path() { return this._p; }
  set path(v) { this._p = v; }
}

describe('app', function () {
  it('works', function () {});
});
"""

SCRIPT_EDITS = {
    "a body": ("return port;", "return port + 1;"),
    "a member name": ("App.prototype.get", "App.prototype.post"),
    "a declarator removed": (", other = 2", ""),
    "a declarator added": ("const helper = () => 1, other = 2;", "const helper = () => 1;"),
    "exported on the line above": ("class Router {", "export\nclass Router {"),
    "a decorator removed": ("  @route('/')\n", ""),
    "a method inserted": ("  get path()", "  added() {}\n  get path()"),
    "a syntax error": ("index() { return 1; }", "index() { return 1; "),
    "a test body": ("it('works', function () {});", "it('works', function () { go(); });"),
}


@pytest.mark.parametrize("edit", sorted(SCRIPT_EDITS))
@pytest.mark.parametrize("read", [script.read_javascript, script.read_typescript,
                                  script.read_tsx], ids=["js", "ts", "tsx"])
def test_a_script_edit_reads_as_a_whole_read(edit: str, read: Reader) -> None:
    old, new = SCRIPT_EDITS[edit]
    assert old in SCRIPT
    _check(read, SCRIPT, SCRIPT.replace(old, new, 1))


def test_successive_edits_compound_without_drift() -> None:
    """Each version read from the one before (records shifted again and again)."""
    versions = [RUST]
    for old, new in (("self.x\n", "self.x + 1\n"), ("mod inner {", "fn a() {}\n\nmod inner {"),
                     ("//! crate docs\n", ""), ("fn a() {}", "fn a() {\n    1;\n}"),
                     ("impl Point {", "trait Point {"), ("trait Point {", "impl Point {")):
        versions.append(versions[-1].replace(old, new, 1))
    wholes = []
    for text in versions:
        tsregions.clear()
        wholes.append(_reading(rust.read(text.encode(), None)))
    tsregions.clear()
    previous = versions[0].encode()
    rust.read(previous, None)
    for text, whole in zip(versions[1:], wholes[1:], strict=True):
        source = text.encode()
        lines = split_lines(previous)
        hunks, new_lines = hunks_and_lines(previous, source, lines)
        assert new_lines is not None
        assert _reading(rust.read(source, Edit(previous, lines, new_lines, hunks))) == whole
        previous = source
    assert tsregions.stats["regions"] >= len(versions) - 1


def _walk(path: Path, regions: bool) -> list[object]:
    tsregions.clear()
    tsregions.EDITED_REGIONS = regions
    handle = open_repo(path)
    cache = DefinitionCache()
    out: list[object] = []
    for sha in _history(handle):
        found = commit_changes(handle, resolve_commit(handle, sha), cache=cache)
        out.append((sha, found.changes, found.unparsed_files))
    return out


def _history(handle: object) -> list[str]:
    import pygit2

    assert isinstance(handle, pygit2.Repository)
    walker = handle.walk(handle.head.target,
                         pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    return [str(c.id) for c in walker]


def _mixed_history(tmp_path: Path) -> Path:
    """Four languages' files edited in turn, then one renamed."""
    repo = FixtureRepo(tmp_path / "repo")
    manifest = '[package]\nname = "demo"\nversion = "0.1.0"\n'
    repo.commit({"Cargo.toml": manifest, "src/lib.rs": RUST, "go.mod": "module ex.com/d\n",
                 "d.go": GO, "src/main/java/demo/Shape.java": JAVA, "app.js": SCRIPT},
                "start")
    texts = {"src/lib.rs": RUST, "d.go": GO, "src/main/java/demo/Shape.java": JAVA,
             "app.js": SCRIPT}
    edits = {"src/lib.rs": RUST_EDITS, "d.go": GO_EDITS,
             "src/main/java/demo/Shape.java": JAVA_EDITS, "app.js": SCRIPT_EDITS}
    for round_ in range(3):
        for path, table in edits.items():
            for name in sorted(table)[round_::3]:
                old, new = table[name]
                if old in texts[path]:
                    texts[path] = texts[path].replace(old, new, 1)
                    repo.commit({path: texts[path]}, f"{path}: {name}")
    repo.commit({}, "rename", renames={"app.js": "app.ts"})
    return repo.path


def test_a_real_history_walks_alike_with_regions_on_and_off(tmp_path: Path) -> None:
    path = _mixed_history(tmp_path)
    on = _walk(path, True)
    assert tsregions.stats["regions"] > 10
    off = _walk(path, False)
    assert on == off


def test_trees_pushed_out_between_edits_walk_alike(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept trees' bound only decides which versions are read whole."""
    path = _mixed_history(tmp_path)
    began = tsregions.stats["whole"]
    kept = _walk(path, True)
    whole_kept = tsregions.stats["whole"] - began
    monkeypatch.setattr(tsregions, "_TREES_KEPT", 1)  # four files edited in turn: each
    pushed = _walk(path, True)                         # edit finds its tree pushed out
    assert tsregions.stats["whole"] - began - whole_kept > 2 * whole_kept
    assert pushed == kept
