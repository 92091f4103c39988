"""Java entities (warpline/lang/java.py): packages, overloads by erased parameter types,
constructors, and the walker's rules on real git repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo
from warpline.lang.java import module_name, read

OUTER = """\
package org.demo;

import java.util.List;

/** Doc. */
@Deprecated
public class Outer<T> {
    private int x;

    /** Make one. */
    public Outer(int x) { this.x = x; }
    public Outer() { this(0); }

    public void add(List<String> xs, int[] a, String... rest) {
        x += 1;
    }

    public void add(java.util.Map.Entry<String, T> e) {
        x += 2;
    }

    static class Inner {
        void run() {
            Runnable r = new Runnable() { public void run() {} };
        }
    }

    @interface Marker { String value() default ""; }
}
"""


class _Files:
    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read(self, path: str) -> bytes | None:
        text = self.files.get(path)
        return None if text is None else text.encode()


def test_the_package_is_the_declared_one_else_the_path() -> None:
    path = "src/main/java/org/demo/Outer.java"
    assert module_name(path, _Files({path: OUTER})) == "org.demo"
    assert module_name(path, _Files({})) == "org.demo"
    assert module_name("lib/src/test/java/a/b/T.java", None) == "a.b"
    assert module_name("T.java", None) == "(default)"


def test_overloads_constructors_and_nesting() -> None:
    parsed = read(OUTER.encode())
    assert parsed is not None
    spans = {e.key: e.spans for e in parsed.entities}
    assert spans[("class", "Outer")][0][0] == 5  # from its javadoc, over the annotation
    assert spans[("constructor", "Outer.<init>(int)")] == ((10, 11),)
    assert ("constructor", "Outer.<init>()") in spans
    assert ("method", "Outer.add(List,int[],String[])") in spans
    assert ("method", "Outer.add(Entry)") in spans
    assert ("method", "Outer.Inner.run()") in spans
    assert ("method", "Outer.Marker.value()") in spans  # an annotation's element
    # An anonymous class's method belongs to the method around it.
    assert sum(1 for k in spans if k[1].endswith("run()")) == 1


_changes, _events = langwalk.changes, langwalk.events


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


PATH = "src/main/java/org/demo/Outer.java"


def test_an_edit_of_one_overload_marks_only_that_overload(repo: FixtureRepo) -> None:
    added = _events(_changes(repo, repo.commit({PATH: OUTER})))
    assert added["java:method:org.demo.Outer.add(Entry)"] == ("added", "function", None)
    assert added["java:class:org.demo.Outer"][:2] == ("added", "class")
    edited = _events(_changes(repo, repo.commit({PATH: OUTER.replace("x += 2", "x += 3")})))
    assert edited == {"java:method:org.demo.Outer.add(Entry)": ("modified", "function", None)}


def test_a_class_moved_to_another_package_carries_its_methods(repo: FixtureRepo) -> None:
    repo.commit({PATH: OUTER})
    moved_text = OUTER.replace("package org.demo;", "package org.other;")
    moved = _events(_changes(repo, repo.commit(
        {PATH: None, "src/main/java/org/other/Outer.java": moved_text})))
    assert moved["java:method:org.other.Outer.add(Entry)"][::2] == (
        "moved", "java:method:org.demo.Outer.add(Entry)")
    assert moved["java:class:org.other.Outer"][::2] == ("moved", "java:class:org.demo.Outer")


def test_an_overloads_parameter_type_changed_pairs_it_and_leaves_its_sibling(
        repo: FixtureRepo) -> None:
    repo.commit({PATH: OUTER})
    retyped = OUTER.replace("add(java.util.Map.Entry<String, T> e)", "add(java.util.Set<T> e)")
    events = _events(_changes(repo, repo.commit({PATH: retyped})))
    assert events == {"java:method:org.demo.Outer.add(Set)": (
        "moved", "function", "java:method:org.demo.Outer.add(Entry)")}


def test_a_class_renamed_with_its_file_carries_its_methods(repo: FixtureRepo) -> None:
    repo.commit({PATH: OUTER})
    renamed = OUTER.replace("class Outer<T>", "class Wrapper<T>").replace(
        "public Outer(", "public Wrapper(")
    events = _events(_changes(repo, repo.commit(
        {PATH: None, "src/main/java/org/demo/Wrapper.java": renamed})))
    assert events["java:method:org.demo.Wrapper.add(Entry)"] == (
        "moved", "function", "java:method:org.demo.Outer.add(Entry)")
    assert events["java:constructor:org.demo.Wrapper.<init>(int)"][::2] == (
        "moved", "java:constructor:org.demo.Outer.<init>(int)")
    assert events["java:class:org.demo.Wrapper.Inner"][::2] == (
        "moved", "java:class:org.demo.Outer.Inner")


QUOTE = """\
package org.demo;

public class Quote {
    public String quote(String path) {
        String a = path.trim();
        String b = path.toLowerCase();
        String c = path + a + b;
        return path + c;
    }

    public int other() { return 1; }
}
"""


def test_a_method_renamed_with_its_parameter_keeps_its_lineage(repo: FixtureRepo) -> None:
    path = "src/main/java/org/demo/Quote.java"
    repo.commit({path: QUOTE})
    renamed = QUOTE.replace("quote(String path)", "quoteUri(String uri)").replace(
        "path", "uri")
    events = _events(_changes(repo, repo.commit({path: renamed})))
    assert events["java:method:org.demo.Quote.quoteUri(String)"] == (
        "moved", "function", "java:method:org.demo.Quote.quote(String)")


def test_a_syntax_error_keeps_intact_definitions(repo: FixtureRepo) -> None:
    repo.commit({PATH: OUTER})
    broken = _changes(repo, repo.commit({PATH: OUTER.replace("x += 2", "x += 3").replace(
        "void run() {", "void run() {{ (")}))
    assert broken.unparsed_files == ()
    events = _events(broken)
    assert events["java:method:org.demo.Outer.add(Entry)"][0] == "modified"
    assert "java:constructor:org.demo.Outer.<init>(int)" not in events
