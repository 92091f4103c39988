"""Maven's row (``warpline/runners/maven.py``) and Java's tests (issue 37 item 2): detection
from the repository's own files, the ids it owns, tests found in the source as JUnit and
Surefire find them, and a selection printed as Maven's own command that runs exactly the
selection — run for real with ``mvn`` on small fixture projects (``tests/javaproject.py``;
``.ci/run`` warms their dependencies once, so the run needs no network)."""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from tests.javaproject import FILES, JUPITER_FILES, mvn_available, write
from warpline.graph.builtin import capture_builtin
from warpline.runners import owner_of, used_for
from warpline.runners.maven import MAVEN
from warpline.runners.maven_command import commands
from warpline.runners.maven_rules import detect, in_suite

needs_mvn = pytest.mark.skipif(not mvn_available(), reason="mvn and javac are not installed")


def test_a_repository_uses_maven_when_it_has_a_pom(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    assert not MAVEN.detect(tmp_path)
    (tmp_path / "lib" / "pom.xml").write_text("<project/>", encoding="utf-8")
    assert MAVEN.detect(tmp_path)  # a module one level below the root
    (tmp_path / "elsewhere.xml").write_text("<project/>", encoding="utf-8")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "pom.xml").symlink_to(tmp_path / "elsewhere.xml")
    assert not MAVEN.detect(linked)  # a symlinked manifest declares nothing
    assert used_for(tmp_path, ["java"]) == [MAVEN]
    assert used_for(tmp_path, ["python"]) != [MAVEN]


def test_maven_owns_java_test_ids() -> None:
    for test_id in ("src/test/java/a/FooTest.java::FooTest#bar", "core/src/test/java/a/B.java",
                    "src/test/java/a/FooTest.java::FooTest$Inner#baz"):
        assert MAVEN.owns(test_id) and owner_of(test_id) is MAVEN, test_id
        assert test_id.startswith(MAVEN.test_file(test_id))
    for test_id in ("tests/test_a.py::test_x", "pkg/x_test.go::TestX", "tests"):
        assert not MAVEN.owns(test_id), test_id
    assert MAVEN.is_test_file("src/test/java/a/FooTest.java")
    assert not MAVEN.is_test_file("src/main/java/a/Foo.java")


def _discovered(root: Path) -> dict[str, list[str]]:
    repo = pygit2.Repository(str(root))
    capture = capture_builtin(repo, repo.head.peel(pygit2.Commit))
    assert capture.discovery is not None
    tests: dict[str, list[str]] = capture.discovery["java"]["tests"]
    return tests


@pytest.fixture
def project(tmp_path: Path) -> Path:
    fixture = FixtureRepo(tmp_path / "calc")
    fixture.commit(dict(FILES), "calc")
    return write(fixture.path)


def test_tests_are_found_as_junit_finds_them(project: Path) -> None:
    tests = _discovered(project)
    ids = sorted(i for found in tests.values() for i in found)
    base = "src/test/java/demo/"
    assert ids == sorted([
        f"{base}CalcTest.java::CalcTest#adds",
        f"{base}CalcTest.java::CalcTest#subtracts",
        f"{base}CalcTest.java::CalcTest#multipliesDoubles",
        f"{base}SubCheckTest.java::SubCheckTest#inheritedAdds",  # from the abstract base
        f"{base}SubCheckTest.java::SubCheckTest#scales",
        f"{base}LegacyTestCase.java::LegacyTestCase#testMultiplies",  # JUnit 3
        f"{base}LegacyTestCase.java::LegacyTestCase#testSubtracts",
        f"{base}OuterTest.java::OuterTest$Nested#nestedAdds",  # Enclosed's member class
    ])
    # the inherited test is known by the base's method, run under the subclass
    assert tests["java:method:demo.BaseCheck.inheritedAdds()"] == [
        f"{base}SubCheckTest.java::SubCheckTest#inheritedAdds"]


def test_surefire_includes_and_the_poms_own() -> None:
    pom = b"""<project><build><plugins><plugin>
      <artifactId>maven-surefire-plugin</artifactId>
      <configuration><includes><include>**/*Spec.java</include></includes>
      <excludes><exclude>**/Slow*.java</exclude></excludes></configuration>
    </plugin></plugins></build></project>"""
    own = detect(["mod/pom.xml"], {"mod/pom.xml": pom}.get)[0]
    assert own.test_roots == ("mod/src/test/java/",)
    assert in_suite(own, "mod/src/test/java/a/FooSpec.java")
    assert not in_suite(own, "mod/src/test/java/a/FooTest.java")
    assert not in_suite(own, "mod/src/test/java/a/SlowSpec.java")
    default = detect(["pom.xml"], {"pom.xml": b"<project/>"}.get)[0]
    for name in ("TestFoo", "FooTest", "FooTests", "FooTestCase"):
        assert in_suite(default, f"src/test/java/a/{name}.java")
    assert not in_suite(default, "src/test/java/a/Helper.java")
    gradle = detect(["build.gradle.kts", "gradlew"], {"build.gradle.kts": b""}.get)[0]
    assert (gradle.tool, gradle.wrapper) == ("gradle", True)


def test_a_hostile_pom_is_data() -> None:
    bomb = b"""<?xml version="1.0"?><!DOCTYPE p [<!ENTITY a "aaaa">]><project>&a;</project>"""
    assert detect(["pom.xml"], {"pom.xml": bomb}.get) == []


def test_commands_name_modules_and_methods() -> None:
    root_pom = b"<project><modules><module>core</module></modules></project>"
    projects = detect(["pom.xml", "core/pom.xml", "mvnw"],
                      {"pom.xml": root_pom, "core/pom.xml": b"<project/>", "mvnw": b""}.get)
    ids = ["core/src/test/java/a/FooTest.java::FooTest#one",
           "core/src/test/java/a/FooTest.java::FooTest#two",
           "core/src/test/java/a/FooTest.java::FooTest$Inner#three"]
    assert commands(projects, ids) == [
        "./mvnw -pl core -am -Dsurefire.failIfNoSpecifiedTests=false "
        "'-Dtest=a/FooTest#one+two,a/FooTest$Inner#three' test"]


def _ran(root: Path) -> set[str]:
    ran = set()
    for report in (root / "target" / "surefire-reports").glob("TEST-*.xml"):
        for case in ET.parse(report).getroot().iter("testcase"):
            if case.find("skipped") is None:
                ran.add(f"{case.get('classname')}#{case.get('name')}")
    return ran


@needs_mvn
def test_the_printed_command_runs_exactly_the_selection(project: Path) -> None:
    tests = _discovered(project)
    chosen = [tests["java:method:demo.CalcTest.adds()"][0],
              tests["java:method:demo.CalcTest.multipliesDoubles()"][0],
              tests["java:method:demo.BaseCheck.inheritedAdds()"][0],
              tests["java:method:demo.LegacyTestCase.testSubtracts()"][0],
              tests["java:method:demo.OuterTest.Nested.nestedAdds()"][0]]
    repo = pygit2.Repository(str(project))
    capture = capture_builtin(repo, repo.head.peel(pygit2.Commit))
    assert capture.discovery is not None
    projects = detect(["pom.xml"], lambda path: (project / path).read_bytes())
    printed = commands(projects, chosen)
    assert printed == ["mvn '-Dtest=demo/CalcTest#adds+multipliesDoubles,"
                       "demo/SubCheckTest#inheritedAdds,demo/LegacyTestCase#testSubtracts,"
                       "demo/OuterTest$Nested#nestedAdds' test"]
    done = subprocess.run(["bash", "-c", printed[0]], cwd=project,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert _ran(project) == {"demo.CalcTest#adds", "demo.CalcTest#multipliesDoubles",
                             "demo.SubCheckTest#inheritedAdds",
                             "demo.LegacyTestCase#testSubtracts",
                             "demo.OuterTest$Nested#nestedAdds"}


JUPITER = """package demo;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StackTests {
    @Test
    void isEmpty() {}

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void pushes(int value) {}

    @RepeatedTest(3)
    void repeats() {}

    @TestFactory
    java.util.List<Object> dynamic() { return java.util.List.of(); }

    @Disabled
    @Test
    void never() {}

    void helper() {}

    @Nested
    class WhenFull {
        @Test
        void refuses() {}
    }
}
"""


def test_junit5_tests_in_a_gradle_layout(tmp_path: Path) -> None:
    fixture = FixtureRepo(tmp_path / "stack")
    fixture.commit({"build.gradle.kts": "plugins { java }\n",
                    "src/test/java/demo/StackTests.java": JUPITER}, "stack")
    ids = sorted(i for found in _discovered(fixture.path).values() for i in found)
    file = "src/test/java/demo/StackTests.java"
    assert ids == [f"{file}::StackTests#dynamic", f"{file}::StackTests#isEmpty",
                   f"{file}::StackTests#pushes", f"{file}::StackTests#repeats",
                   f"{file}::StackTests$WhenFull#refuses"]


@needs_mvn
def test_the_printed_command_runs_exactly_junit5_tests(tmp_path: Path) -> None:
    fixture = FixtureRepo(tmp_path / "stack")
    fixture.commit(dict(JUPITER_FILES), "stack")
    project = write(fixture.path, JUPITER_FILES)
    tests = _discovered(project)
    chosen = [*tests["java:method:demo.StackTest.pushes(int)"],
              *tests["java:method:demo.StackTest.WhenPushed.isNotEmpty()"]]
    printed = commands(detect(["pom.xml"], lambda path: (project / path).read_bytes()), chosen)
    assert printed == ["mvn '-Dtest=demo/StackTest#pushes,demo/StackTest$WhenPushed#isNotEmpty'"
                       " test"]
    done = subprocess.run(["bash", "-c", printed[0]], cwd=project, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = {re.sub(r"\(.*$|\[.*$", "", t) for t in _ran(project)}
    assert ran == {"demo.StackTest#pushes", "demo.StackTest$WhenPushed#isNotEmpty"}
