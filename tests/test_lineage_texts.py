"""The texts lineage compares (issue 35, items 5 and 6): each language's comments read as
comments (Rust attributes as code), and a rename's own names replaced alike on both sides."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo
from warpline.lang import by_name


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


GOMOD = "module github.com/acme/demo\n\ngo 1.21\n"
CLAMP = """\
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	return min(v, hi)
}
"""
DOC = "".join(f"// Clamp keeps v within [lo, hi]: line {i} of its documentation.\n"
              for i in range(20))


def test_a_go_function_moved_to_another_package_with_doc_lines_added_is_moved(
        repo: FixtureRepo) -> None:
    repo.commit({"go.mod": GOMOD, "util/util.go": "package util\n\n" + CLAMP,
                 "util/other.go": "package util\n\nfunc Other() int { return 1 }\n"}, "one")
    sha = repo.commit({"util/util.go": None,
                       "mathx/clamp.go": "package mathx\n\n" + DOC + CLAMP}, "move")
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found["go:function:github.com/acme/demo/mathx.Clamp"] == (
        "moved", "function", "go:function:github.com/acme/demo/util.Clamp")


def test_rust_attribute_lines_are_code_and_comment_lines_are_not() -> None:
    text = ["/// Doc.", "#[inline]", "#[cfg(unix)]", "fn f() {", "    // why", "    1 /* x */",
            "    /* a", "     * b */", '    let s = "// not a comment";', "}"]
    lines = [line.encode() for line in text]
    assert by_name("rust").comment_lines(lines, "function") == {0, 4, 6, 7}  # type: ignore[misc]
    assert by_name("python").comment_lines([b"# c", b"x = 1  # d", b"#!"], "function") == {  # type: ignore[misc]
        0, 2}


STRINGS = """\
package org.demo;

public class Strings {
    public static String toString(Number n) {
        return n == null ? "" : n.toString();
    }

    public static <T> String toString(T value) {
        if (value instanceof Number) return toString((Number) value);
        return String.valueOf(value);
    }
}
"""


def test_a_method_renamed_in_place_calling_an_overload_of_its_old_name_is_moved(
        repo: FixtureRepo) -> None:
    path = "src/main/java/org/demo/Strings.java"
    repo.commit({path: STRINGS}, "one")
    renamed = STRINGS.replace("<T> String toString(T value)", "<T> String anyToString(T value)")
    sha = repo.commit({path: renamed}, "rename")
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found["java:method:org.demo.Strings.anyToString(T)"] == (
        "moved", "function", "java:method:org.demo.Strings.toString(T)")


PROVIDER = '''\
class Provider:
    def find(self, name):
        return self._sort(self.index[name])

    def _sort(self, matches):
        def _eligible(match):
            if match.yanked:
                return False
            return match.version in self.allowed

        return sorted(m for m in matches if _eligible(m))
'''

PROVIDER_NOW = '''\
class Provider:
    def find(self, name):
        def _eligible(match):
            if match.yanked:
                return False
            return match.version in self.allowed

        return sorted(m for m in self.index[name] if _eligible(m))
'''


def test_a_nested_function_moved_into_another_method_is_not_taken_by_its_old_parent(
        repo: FixtureRepo) -> None:
    # pip 8326148: the method holding the nested function names it, so replacing both
    # names on both sides must be kept to one scope's members.
    repo.commit({"p.py": PROVIDER}, "one")
    sha = repo.commit({"p.py": PROVIDER_NOW}, "inline")
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found["python:function:p.Provider.find.<locals>._eligible"][2] == (
        "python:function:p.Provider._sort.<locals>._eligible")


VALIDATOR = """\
package org.demo;

public abstract class AnnotationValidator {
    /**
     * Validates annotation on the given class.
     *
     * @param type that is being validated
     * @param errors collected so far
     */
    public void validateAnnotatedClass(Class<?> type, List<Throwable> errors) {
    }
}
"""


def test_a_stub_whose_doc_comment_stayed_while_its_signature_changed_is_moved(
        repo: FixtureRepo) -> None:
    # junit4 1273a356: the comments both versions share are evidence of identity (a
    # second reading with them); only comments added or removed no longer count against.
    path = "src/main/java/org/demo/AnnotationValidator.java"
    repo.commit({path: VALIDATOR}, "one")
    now = VALIDATOR.replace(
        "public void validateAnnotatedClass(Class<?> type, List<Throwable> errors) {\n",
        "public List<Exception> validateAnnotatedClass(Class<?> type) {\n"
        "        return NO_VALIDATION_ERRORS;\n")
    sha = repo.commit({path: now}, "return the errors")
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found["java:method:org.demo.AnnotationValidator.validateAnnotatedClass(Class)"] == (
        "moved", "function",
        "java:method:org.demo.AnnotationValidator.validateAnnotatedClass(Class,List)")
