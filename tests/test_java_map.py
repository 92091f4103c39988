"""A per-test Java map from JaCoCo (issue 37 item 3), recorded for real on the fixture
Maven project (``tests/javaproject.py``; ``.ci/run`` warms Maven's and JaCoCo's artifacts):
each test's entities, outcomes, the same ``warpline.testmap.v1`` wire as Python's."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from tests.javaproject import FILES, JUPITER_FILES, mvn_available, write
from warpline.runners.maven_jacoco import entity_lines
from warpline.runners.maven_record import java_map
from warpline.testmap.wire import decode, encode

BASE = "src/test/java/demo/"


def test_lines_count_for_the_innermost_definition_and_every_one_around_it() -> None:
    owners = entity_lines(FILES["src/main/java/demo/Calc.java"].encode(),
                          "src/main/java/demo/Calc.java")
    assert owners is not None
    assert owners[6] == ("java:method:demo.Calc.add(int,int)", "java:class:demo.Calc",
                         "java:module:demo")  # line 7: `return scale.apply(a + b);`
    assert owners[3] == ("java:class:demo.Calc", "java:module:demo")  # a field's line


@pytest.mark.skipif(not mvn_available(), reason="mvn and javac are not installed")
def test_a_map_per_test_from_jacoco(tmp_path: Path) -> None:
    fixture = FixtureRepo(tmp_path / "calc")
    fixture.commit(dict(FILES), "calc")
    root = write(fixture.path)
    recorded, _ = java_map(root, pygit2.Repository(str(root)))
    assert sorted(recorded.tests) == sorted([
        f"{BASE}CalcTest.java::CalcTest#adds", f"{BASE}CalcTest.java::CalcTest#subtracts",
        f"{BASE}CalcTest.java::CalcTest#multipliesDoubles",
        f"{BASE}SubCheckTest.java::SubCheckTest#inheritedAdds",
        f"{BASE}SubCheckTest.java::SubCheckTest#scales",
        f"{BASE}LegacyTestCase.java::LegacyTestCase#testMultiplies",
        f"{BASE}LegacyTestCase.java::LegacyTestCase#testSubtracts",
        f"{BASE}OuterTest.java::OuterTest$Nested#nestedAdds"])
    assert {outcome for _, outcome in recorded.tests.values()} == {"passed"}
    adds = recorded.hits[f"{BASE}CalcTest.java::CalcTest#adds"]
    assert {"java:method:demo.Calc.add(int,int)", "java:method:demo.Scale.apply(int)",
            "java:method:demo.CalcTest.adds()"} <= adds
    assert "java:method:demo.Calc.sub(int,int)" not in adds
    doubles = recorded.hits[f"{BASE}CalcTest.java::CalcTest#multipliesDoubles"]
    assert "java:method:demo.Calc.mul(double,double)" in doubles  # the overload that ran
    assert "java:method:demo.Calc.mul(int,int)" not in doubles
    inherited = recorded.hits[f"{BASE}SubCheckTest.java::SubCheckTest#inheritedAdds"]
    assert {"java:method:demo.BaseCheck.inheritedAdds()",
            "java:method:demo.SubCheckTest.calc()"} <= inherited
    again, _ = decode(encode(recorded, 1), recorded.commit_sha)
    assert again.hits == recorded.hits and again.tests == recorded.tests


@pytest.mark.skipif(not mvn_available(), reason="mvn and javac are not installed")
def test_a_map_of_junit5_tests_through_the_platform(tmp_path: Path) -> None:
    fixture = FixtureRepo(tmp_path / "stack")
    fixture.commit(dict(JUPITER_FILES), "stack")
    root = write(fixture.path, JUPITER_FILES)
    recorded, _ = java_map(root, pygit2.Repository(str(root)))
    test = "src/test/java/demo/StackTest.java"
    assert sorted(recorded.tests) == [f"{test}::StackTest#pushes",  # both values: one test
                                      f"{test}::StackTest#startsEmpty",
                                      f"{test}::StackTest$WhenPushed#isNotEmpty"]
    assert {outcome for _, outcome in recorded.tests.values()} == {"passed"}
    assert "java:method:demo.Stack.isEmpty()" in recorded.hits[f"{test}::StackTest#startsEmpty"]
    assert "java:method:demo.Stack.isEmpty()" not in recorded.hits[f"{test}::StackTest#pushes"]
    assert {"java:method:demo.Stack.push(int)", "java:method:demo.Stack.size()"} <= \
        recorded.hits[f"{test}::StackTest$WhenPushed#isNotEmpty"]
