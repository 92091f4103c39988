"""Every test command warpline prints runs (issue 34, items 2 and 3): a selection narrowed
to what the runner collects in the work tree, and non-code changes read for what they are.

A real project in a real git repository; the printed command is run with real pytest. The
defects, each failing on the code before this change: a test deleted in the range stayed in
the command (pytest exit 4, ``not found``); a helper module under ``tests/`` was passed to
pytest (alone: exit 5); a test file deleted in the work tree stayed (exit 4); a changelog, a
docs page or a CI workflow asked for the whole suite; configuration the tests read beside a
code change left the command running a selection under a "run the whole suite" warning.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
HELPERS = "def pair():\n    return (2, 3)\n"
TESTS = ("from app.calc import add, sub\nfrom tests.helpers import pair\n\n\n"
         "def test_add():\n    assert add(*pair()) == 5\n\n\n"
         "def test_sub():\n    assert sub(*pair()) == -1\n")
OTHER = "from app.calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"
PYPROJECT = "[project]\nname = 'calc'\n\n[tool.pytest.ini_options]\ntestpaths = ['tests']\n"
ENV = {"WARPLINE_EDGE_SOURCES": "builtin", "WARPLINE_INTERACTIVE_BUDGET_S": "30"}


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FixtureRepo:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    repo = FixtureRepo(tmp_path / "calc")
    repo.commit({"app/__init__.py": "", "app/calc.py": CALC, "tests/__init__.py": "",
                 "tests/helpers.py": HELPERS, "tests/test_calc.py": TESTS,
                 "tests/test_other.py": OTHER, "pyproject.toml": PYPROJECT,
                 "CHANGELOG.md": "# Changes\n", "docs/index.rst": "Calc\n====\n",
                 ".github/workflows/ci.yml": "on: push\n", "requirements-dev.txt": "pytest\n",
                 ".gitignore": "__pycache__/\n"}, "calc")
    call_tool("warpline_edge_snapshot_capture", {"repo": str(repo.path)})
    return repo


def _reverify(repo: FixtureRepo, rev_range: str, **extra: Any) -> dict[str, Any]:
    envelope = call_tool("reverify", {"repo": str(repo.path), "rev_range": rev_range,
                                      "limit": 5, **extra})
    assert_valid_envelope(envelope)
    return envelope


def _pytest_command(envelope: dict[str, Any]) -> str | None:
    runs = [r for r in envelope["data"]["selection"]["runners"] if r["runner"] == "pytest"]
    return runs[0]["command"] if runs else None


def _run(repo: FixtureRepo, command: str) -> subprocess.CompletedProcess[str]:
    """The command as printed, pytest being this interpreter's."""
    python = f"{shlex.quote(sys.executable)} -m pytest -p no:cacheprovider -q"
    assert command.startswith("pytest ")
    return subprocess.run(["sh", "-c", python + command[len("pytest"):]], cwd=repo.path,
                          capture_output=True, text=True, timeout=240, check=False,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo.path),
                               "PYTHONDONTWRITEBYTECODE": "1"})


def test_a_test_deleted_in_the_range_and_a_helper_module_are_left_out_and_named(
        project: FixtureRepo) -> None:
    without_sub = TESTS[:TESTS.index("\n\ndef test_sub")] + "\n"
    project.commit({"app/calc.py": CALC.replace("a + b", "b + a"),
                    "tests/test_calc.py": without_sub,
                    "tests/helpers.py": HELPERS.replace("(2, 3)", "(3, 2)")}, "drop test_sub")
    envelope = _reverify(project, "HEAD~1..HEAD")
    command = _pytest_command(envelope)
    assert command is not None and envelope["next_actions"]["commands"][0]["command"] == command
    done = _run(project, command)
    assert done.returncode == 0, done.stdout + done.stderr  # was 4: test_sub not found
    selection = envelope["data"]["selection"]
    assert not any(t.startswith(("tests/helpers.py", "tests/test_calc.py::test_sub"))
                   for t in selection["tests"])
    assert "tests/test_calc.py::test_add" in selection["tests"] or \
        "tests/test_calc.py" in selection["tests"]
    assert "tests/test_calc.py::test_sub" in selection["dropped_tests"]
    assert "tests/helpers.py" in selection["dropped_tests"]


def test_a_helper_module_alone_is_never_passed_to_pytest(project: FixtureRepo) -> None:
    project.commit({"tests/helpers.py": HELPERS + "\n\ndef unused():\n    return 0\n"},
                   "a helper")
    selection = _reverify(project, "HEAD~1..HEAD")["data"]["selection"]
    assert "tests/helpers.py" not in selection["tests"]
    for run in selection["runners"]:
        assert "tests/helpers.py" not in run["tests"]
        if not run["whole_suite"]:
            assert _run(project, run["command"]).returncode == 0


def test_a_test_file_deleted_in_the_work_tree_is_dropped_from_the_command(
        project: FixtureRepo) -> None:
    project.commit({"app/calc.py": CALC.replace("a + b", "b + a")}, "add: commuted")
    before = _reverify(project, "HEAD~1..HEAD")["data"]["selection"]
    assert "tests/test_other.py" in {t.split("::")[0] for t in before["tests"]}
    project.delete_worktree("tests/test_other.py")
    envelope = _reverify(project, "HEAD~1..HEAD", include_worktree=True)
    selection = envelope["data"]["selection"]
    assert not any(t.startswith("tests/test_other.py") for t in selection["tests"])
    assert any(t.startswith("tests/test_other.py") for t in selection["dropped_tests"])
    command = _pytest_command(envelope)
    assert command is not None
    done = _run(project, command)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("path", ["CHANGELOG.md", "docs/index.rst"])
def test_documentation_selects_no_test_and_says_so(project: FixtureRepo, path: str) -> None:
    project.commit({path: "# Changes\n\n* more\n"}, "docs")
    envelope = _reverify(project, "HEAD~1..HEAD")
    selection = envelope["data"]["selection"]
    assert selection["runners"] == []  # was pytest's whole suite
    assert selection["nothing_to_run"] and not selection["tests"]
    assert [c["kind"] for c in selection["non_code"]] == ["docs"]
    assert not any(c["command"].startswith("pytest")
                   for c in envelope["next_actions"]["commands"])


def test_ci_configuration_asks_for_the_pipeline_not_the_whole_suite(
        project: FixtureRepo) -> None:
    project.commit({".github/workflows/ci.yml": "on: [push, pull_request]\n"}, "ci")
    envelope = _reverify(project, "HEAD~1..HEAD")
    selection = envelope["data"]["selection"]
    assert selection["runners"] == []  # was pytest's whole suite
    assert [c["kind"] for c in selection["non_code"]] == ["ci"]
    assert selection["nothing_to_run"]
    item = envelope["data"]["items"][0]
    assert [s["kind"] for s in item["suggested_verification"]] == ["inspection"]


def test_a_changelog_beside_code_does_not_turn_the_selection_into_the_whole_suite(
        project: FixtureRepo) -> None:
    project.commit({"app/calc.py": CALC.replace("a - b", "-(b - a)"),
                    "CHANGELOG.md": "# Changes\n\n* sub\n"}, "sub, and its changelog line")
    selection = _reverify(project, "HEAD~1..HEAD")["data"]["selection"]
    (run,) = selection["runners"]
    assert not run["whole_suite"] and run["tests"] == selection["tests"]
    assert selection["entities_without_tests"] == []  # the changelog is not "untested code"


@pytest.mark.parametrize("path", ["pyproject.toml", "requirements-dev.txt"])
def test_configuration_the_tests_read_runs_the_whole_suite_with_the_reason(
        project: FixtureRepo, path: str) -> None:
    text = (project.path / path).read_text()
    project.commit({path: text + "\n", "app/calc.py": CALC.replace("a - b", "-(b - a)")},
                   "config and code")
    envelope = _reverify(project, "HEAD~1..HEAD")
    selection = envelope["data"]["selection"]
    (run,) = selection["runners"]
    assert run["whole_suite"] and run["command"] == "pytest" and run["tests"] == []
    assert selection["tests"] == []  # was the code's selection, under a whole-suite warning
    assert {"locator": f"core:file:{path}", "kind": "test_config",
            "runners": ["pytest"]} in selection["non_code"]
    first = envelope["next_actions"]["commands"][0]
    assert first["command"] == "pytest" and path in first["why"]


def test_every_command_a_warning_names_is_one_command(project: FixtureRepo) -> None:
    # The no-map warning named "`pytest --warpline-record or warpline record-tests`": one
    # span an agent runs as given, two runners' commands joined by a word.
    import re

    project.commit({"app/calc.py": CALC.replace("a + b", "b + a")}, "add: commuted")
    envelope = _reverify(project, "HEAD~1..HEAD")
    spans = [s for w in envelope["warnings"] for s in re.findall(r"`([^`]+)`", w)
             if s.split()[0] in ("pytest", "warpline")]
    assert any(s == "pytest --warpline-record" for s in spans), envelope["warnings"]
    assert not [s for s in spans if " or " in s]
