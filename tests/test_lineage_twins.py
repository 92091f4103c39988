"""Lineage must not pick the wrong twin (issue 35, item 7): both shapes read in junit4's
history (f0ef837, bb48ff9), reduced to fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


LINKS = "src/main/java/org/demo/links/"
INVOKE = """\
package org.demo.links;

public class Invoke extends Link {
	private Object fTarget;

	@Override
	public void run(EachTestNotifier context) throws Throwable {
		fTestMethod.invokeExplosively(fTarget);
	}
}
"""
INVOKE_NOW = """\
package org.demo.links;

public class Invoke extends Link {
	private Object fTarget;

	@Override
	public void run(FailureListener listener) {
		try {
			fTestMethod.invokeExplosively(fTarget);
		} catch (Throwable e) {
			listener.addFailure(e);
		}
	}
}
"""
NOTIFYING = """\
package org.demo.links;

public class Notifying extends Link {
	private final Link fNext;

	@Override
	public void run(EachTestNotifier context) {
		context.fireTestStarted();
		try {
			fNext.run(context);
		} catch (Throwable e) {
			context.addFailure(e);
		} finally {
			context.fireTestFinished();
		}
	}
}
"""
NOTIFYING_NOW = """\
package org.demo.links;

public class Notifying extends Link {
	private final Link fNext;

	@Override
	public void run(FailureListener listener) {
		fNotifier.fireTestStarted();
		fNext.run(listener);
		fNotifier.fireTestFinished();
	}
}
"""


def test_a_signature_change_pairs_in_its_own_file_before_a_same_named_method_elsewhere(
        repo: FixtureRepo) -> None:
    # junit4 f0ef837: every Link's run(EachTestNotifier) became run(FailureListener);
    # Invoke's new run was paired with Notifying's old one (a little more alike), and
    # Invoke's own old run was left removed.
    repo.commit({LINKS + "Invoke.java": INVOKE, LINKS + "Notifying.java": NOTIFYING}, "one")
    sha = repo.commit({LINKS + "Invoke.java": INVOKE_NOW,
                       LINKS + "Notifying.java": NOTIFYING_NOW}, "listener")
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found["java:method:org.demo.links.Invoke.run(FailureListener)"] == (
        "moved", "function", "java:method:org.demo.links.Invoke.run(EachTestNotifier)")
    assert found.get("java:method:org.demo.links.Notifying.run(FailureListener)", (
        "moved", "", ""))[2] != "java:method:org.demo.links.Invoke.run(EachTestNotifier)"


SUITE = """\
package org.demo;

public class SuiteTest {
    @Test
    public void nonPublicSuiteFails() {
        assertThat(testResult(NonPublicSuite.class), hasSingleFailureContaining("access"));
    }
}
"""
RULES = """\
package org.demo;

public class RulesTest {
    @Test
    public void ruleRuns() {
        assertTrue(wasRun);
    }
}
"""
RULES_NOW = """\
package org.demo;

public class RulesTest {
    @Test
    public void ruleRuns() {
        assertTrue(wasRun);
    }

    static abstract class NonPublicExample {
        @Test
        public void nothing() {
        }
    }
}
"""


def test_a_renamed_test_is_not_paired_with_an_empty_method_in_another_file(
        repo: FixtureRepo) -> None:
    # junit4 bb48ff9: a test renamed in place (its assertion changed) was paired with a
    # new empty ``nothing()`` in another file: three lines, two of them braces and the
    # header, "alike" to any short test once names are replaced.
    test_dir = "src/test/java/org/demo/"
    repo.commit({test_dir + "SuiteTest.java": SUITE, test_dir + "RulesTest.java": RULES}, "one")
    suite_now = SUITE.replace("nonPublicSuiteFails", "nonPublicSuitePasses").replace(
        'hasSingleFailureContaining("access")', "isSuccessful()")
    sha = repo.commit({test_dir + "SuiteTest.java": suite_now,
                       test_dir + "RulesTest.java": RULES_NOW}, "non-public")
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found["java:method:org.demo.RulesTest.NonPublicExample.nothing()"] == (
        "added", "function", None)


def test_identical_renames_in_two_files_each_pair_in_their_own_file(
        repo: FixtureRepo) -> None:
    # pip c50290e: ``version_str`` renamed ``raw_version`` in two classes of two files,
    # bodies identical: each must pair in its own file.
    body = ("class Dist:\n    @property\n    def version_str(self):\n"
            "        return self._d.version\n")
    repo.commit({"a.py": body, "b.py": body}, "one")
    renamed = body.replace("version_str", "raw_version")
    sha = repo.commit({"a.py": renamed, "b.py": renamed}, "rename")
    found = langwalk.events(langwalk.changes(repo, sha))
    assert found["python:function:a.Dist.raw_version"][2] == "python:function:a.Dist.version_str"
    assert found["python:function:b.Dist.raw_version"][2] == "python:function:b.Dist.version_str"
