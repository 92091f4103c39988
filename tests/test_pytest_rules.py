"""Test discovery follows the project's pytest configuration files, in pytest's order."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from warpline.runners.pytest_rules import (
    DEFAULT_RULES,
    TestRules,
    rules_from_texts,
    rules_from_tree,
)


def test_without_configuration_the_defaults_and_the_tests_directory_rule_apply() -> None:
    rules = rules_from_texts({})
    assert rules == DEFAULT_RULES
    assert rules.is_test_file("pkg/test_a.py") and rules.is_test_file("pkg/a_test.py")
    assert rules.is_test_file("tests/helpers.py")
    assert not rules.is_test_file("tests/conftest.py") and not rules.is_test_file("pkg/a.py")
    assert rules.collects_class("TestA") and not rules.collects_class("ATest")
    assert rules.collects_function("test_x") and not rules.collects_function("check_x")


@pytest.mark.parametrize(("name", "text"), [
    ("pytest.ini", "[pytest]\npython_files = check_*.py\n    *_spec.py\n"),
    ("pyproject.toml", '[tool.pytest.ini_options]\npython_files = ["check_*.py", "*_spec.py"]\n'),
    ("tox.ini", "[tox]\nenvlist = py3\n\n[pytest]\npython_files = check_*.py *_spec.py\n"),
    ("setup.cfg", "[metadata]\nname = x\n\n[tool:pytest]\npython_files = check_*.py *_spec.py\n"),
])
def test_python_files_is_read_from_each_kind_of_config_file(name: str, text: str) -> None:
    rules = rules_from_texts({name: text})
    assert rules.config_file == name
    assert rules.python_files == ("check_*.py", "*_spec.py")
    assert rules.is_test_file("testing/check_a.py") and rules.is_test_file("x/a_spec.py")
    # Naming python_files replaces the defaults, and the tests/ directory rule with them.
    assert not rules.is_test_file("testing/test_a.py")
    assert not rules.is_test_file("tests/helpers.py")


def test_pytest_ini_wins_even_when_empty_and_a_section_less_file_is_skipped() -> None:
    assert rules_from_texts({"pytest.ini": "[pytest]\n",
                             "tox.ini": "[pytest]\npython_files = x_*.py\n"}).python_files \
        == DEFAULT_RULES.python_files
    rules = rules_from_texts({"setup.cfg": "[metadata]\nname = x\n",
                              "tox.ini": "[pytest]\npython_functions = check\n"})
    assert rules.config_file == "tox.ini" and rules.collects_function("check_it")


def test_a_pattern_with_a_slash_matches_the_end_of_the_path() -> None:
    text = '[tool.pytest.ini_options]\npython_files = ["testing/python/*.py"]\n'
    rules = rules_from_texts({"pyproject.toml": text})
    assert rules.is_test_file("testing/python/collect.py")
    assert not rules.is_test_file("testing/other/collect.py")


def test_class_and_function_patterns_are_prefixes_or_globs() -> None:
    rules = rules_from_texts({"tox.ini": "[pytest]\npython_classes = *Suite Check\n"
                                         "python_functions = should_* check\n"})
    assert rules.collects_class("LoginSuite") and rules.collects_class("Checks")
    assert not rules.collects_class("TestA")
    assert rules.collects_function("should_work") and rules.collects_function("check_it")
    assert not rules.collects_function("test_x")


def test_testpaths_narrow_the_tests_directory_rule() -> None:
    rules = rules_from_texts({"pyproject.toml":
                              '[tool.pytest.ini_options]\ntestpaths = ["tests/unit"]\n'})
    assert rules.testpaths == ("tests/unit",)
    assert rules.is_test_file("tests/unit/helpers.py")
    assert not rules.is_test_file("tests/fixtures/data.py")
    assert rules.is_test_file("tests/fixtures/test_data.py")  # named like a test: collected


def test_malformed_configuration_falls_back_to_the_next_file() -> None:
    rules = rules_from_texts({"pyproject.toml": "[tool.pytest.ini_options\n",
                              "tox.ini": "[pytest]\npython_files = t_*.py\n"})
    assert rules.config_file == "tox.ini" and rules.python_files == ("t_*.py",)


def test_rules_are_read_from_the_commit_not_the_working_tree(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"pytest.ini": "[pytest]\npython_files = check_*.py\n", "a.py": "x = 1\n"})
    (tmp_path / "repo" / "pytest.ini").write_text("[pytest]\npython_files = other_*.py\n")
    git = pygit2.Repository(str(repo.path))
    rules = rules_from_tree(git.head.peel(pygit2.Commit).tree)
    assert rules.python_files == ("check_*.py",)
    assert TestRules.from_json(rules.to_json()) == rules
