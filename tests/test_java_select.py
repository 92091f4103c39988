"""Java's static selection without a map (issue 37 item 4): the tests reaching the change
over the edges, plus the floor (the changed class's own tests by name, test files using
the changed file), on the fixture Maven project."""

from __future__ import annotations

from pathlib import Path

import pygit2

from tests.gitfixture import FixtureRepo
from tests.javaproject import FILES
from warpline.graph.builtin import capture_builtin
from warpline.runners.maven_select import initializer_classes, static_tests

BASE = "src/test/java/demo/"


def _facts(tmp_path: Path) -> tuple[list[tuple[str, str]], dict[str, object]]:
    fixture = FixtureRepo(tmp_path / "calc")
    fixture.commit(dict(FILES), "calc")
    repo = pygit2.Repository(str(fixture.path))
    capture = capture_builtin(repo, repo.head.peel(pygit2.Commit))
    assert capture.discovery is not None
    return [(e.source_locator, e.target_locator) for e in capture.edges], \
        capture.discovery["java"]


def test_tests_reaching_the_change_and_the_files_using_it(tmp_path: Path) -> None:
    edges, facts = _facts(tmp_path)
    answer = static_tests(edges, facts, ["java:method:demo.Scale.apply(int)"],
                          ["src/main/java/demo/Scale.java"])
    assert set(answer.tests) == {
        f"{BASE}CalcTest.java::CalcTest#adds",  # through Calc.add
        f"{BASE}SubCheckTest.java::SubCheckTest#inheritedAdds",  # the base's test, inherited
        f"{BASE}OuterTest.java::OuterTest$Nested#nestedAdds",
        f"{BASE}SubCheckTest.java::SubCheckTest#scales",
    }
    assert answer.floor_files == [f"{BASE}SubCheckTest.java"]  # it names Scale itself
    assert answer.reaching == 4


def test_the_changed_class_own_tests_by_name(tmp_path: Path) -> None:
    edges, facts = _facts(tmp_path)
    # a definition the snapshot does not hold yet: its file's own tests answer for it
    answer = static_tests(edges, facts, ["java:method:demo.Calc.div(int,int)"],
                          ["src/main/java/demo/Calc.java"])
    assert f"{BASE}CalcTest.java" in answer.floor_files
    assert {f"{BASE}CalcTest.java::CalcTest#adds", f"{BASE}CalcTest.java::CalcTest#subtracts",
            f"{BASE}CalcTest.java::CalcTest#multipliesDoubles"} <= set(answer.tests)
    assert answer.reaching == 0
    assert "floor" in answer.basis


TABLE = """package demo;

public class Table {
    private static final int[] VALUES = build();

    static int[] build() {
        return helper();
    }

    static int[] helper() {
        return new int[0];
    }

    public int size() {
        return VALUES.length;
    }
}
"""


def test_what_a_static_initializer_calls_is_found_through_its_class(tmp_path: Path) -> None:
    fixture = FixtureRepo(tmp_path / "table")
    fixture.commit({"src/main/java/demo/Table.java": TABLE}, "table")
    repo = pygit2.Repository(str(fixture.path))
    capture = capture_builtin(repo, repo.head.peel(pygit2.Commit))
    calls = [(e.source_locator, e.target_locator) for e in capture.edges if e.kind == "calls"]
    # helper() runs once per JVM, inside the class's initializer: every test that ran
    # Table's code depends on it, though a per-test map saw only the first one run it
    assert initializer_classes(calls, ["java:method:demo.Table.helper()"]) == {
        "java:class:demo.Table"}
    assert initializer_classes(calls, ["java:method:demo.Table.size()"]) == set()
