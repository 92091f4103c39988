"""One selection, every output: ``reverify``'s JSON (``data.selection.tests``,
``next_actions``), its table, ``--format markdown`` and ``--format pytest``, ``warpline ci``
(stdout, ``--selection`` file, step summary) and ``pytest --warpline-select`` name the same
tests on the same state (issue 27, defect 1).

A real project in a real git repository: a flash-message module imported by three of four
test files; the bug (categories dropped) is caught only by a test that reaches the function
through a name looked up at run time (``getattr``), which the static graph cannot follow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.dispatchproject import run_pytest
from tests.gitfixture import FixtureRepo

FLASH = '''\
_QUEUE = []


def flash(message, category="message"):
    _QUEUE.append((category, message))


def get_flashed(with_categories=False):
    out = list(_QUEUE) if with_categories else [m for _, m in _QUEUE]
    _QUEUE.clear()
    return out
'''
BUG = ("out = list(_QUEUE) if with_categories else [m for _, m in _QUEUE]",
       "out = [m for _, m in _QUEUE]")

VIEWS = '''\
from app import flash as flashing


def view_notify(who):
    flashing.flash("hi " + who, "info")
    return flashing.get_flashed(with_categories=True)


def dispatch(name, *args):
    return globals()["view_" + name](*args)
'''

OTHER = "def double(x):\n    return 2 * x\n"

TESTS = {
    "tests/test_basic.py": '''\
from app.flash import flash, get_flashed


def test_flashes():
    flash("a")
    assert get_flashed() == ["a"]
''',
    "tests/test_extended.py": '''\
from app.flash import get_flashed
from app.views import dispatch


def test_extended_flashing():
    assert dispatch("notify", "ann") == [("info", "hi ann")]
    assert get_flashed() == []
''',
    "tests/test_queue.py": '''\
from app import flash


def test_queue_starts_empty():
    assert flash.get_flashed() == []
''',
    "tests/test_other.py": '''\
from app.other import double


def test_double():
    assert double(2) == 4
''',
}
ENV = {"WARPLINE_EDGE_SOURCES": "builtin", "WARPLINE_INTERACTIVE_BUDGET_S": "30",
       "PYTHONDONTWRITEBYTECODE": "1"}


def _env(path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GITLAB_", "CI_", "RUNNER_", "PYTEST_", "WARPLINE_"))
           and k != "CI"}
    return {**env, **ENV, "NO_COLOR": "1", "PYTHONPATH": str(path), **extra}


def _warpline(path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=path,
                          env=_env(path, **extra), capture_output=True, text=True,
                          timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _project(root: Path, *, record: bool) -> FixtureRepo:
    repo = FixtureRepo(root)
    repo.commit({"app/__init__.py": "", "app/flash.py": FLASH, "app/views.py": VIEWS,
                 "app/other.py": OTHER, "tests/__init__.py": "", **TESTS,
                 ".gitignore": "__pycache__/\n.coverage\n"}, "the project")
    if record:
        recorded = run_pytest(root, "--warpline-record", env=ENV)
        assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    text = (root / "app/flash.py").read_text()
    repo.commit({"app/flash.py": text.replace(*BUG)}, "flash: simpler (the bug)")
    _warpline(root, "capture-snapshot")
    return repo


def _collected(root: Path, *args: str) -> set[str]:
    done = run_pytest(root, "--collect-only", *args, env=ENV)
    assert done.returncode == 0, done.stdout + done.stderr
    return {line.strip() for line in done.stdout.splitlines() if "::" in line}


def _sh_block(markdown: str) -> str:
    block = markdown.split("### Tests to run", 1)[1].split("```sh\n", 1)[1]
    return block.split("\n```", 1)[0]


def _outputs(root: Path, tmp_path: Path) -> dict[str, Any]:
    """Every output's selection, on one state."""
    envelope = json.loads(_warpline(root, "reverify", "HEAD~1..HEAD", "--json").stdout)
    table = _warpline(root, "reverify", "HEAD~1..HEAD").stdout
    markdown = _warpline(root, "reverify", "HEAD~1..HEAD", "--format", "markdown").stdout
    command = _warpline(root, "reverify", "HEAD~1..HEAD", "--format", "pytest")
    summary = tmp_path / "summary.md"
    selection_file = tmp_path / "tests.txt"
    ci = _warpline(root, "ci", "--base", "HEAD~1", "--no-fetch", "--markdown",
                   str(tmp_path / "ci.md"), "--selection", str(selection_file),
                   GITHUB_STEP_SUMMARY=str(summary)).stdout
    ci_lines = ci.splitlines()
    start = next(i for i, line in enumerate(ci_lines) if line.startswith("tests to run"))
    ci_commands = [line.strip() for line in ci_lines[start + 1:] if line.startswith("  ")]
    return {"envelope": envelope, "table": table, "markdown": _sh_block(markdown),
            "pytest": command, "ci": ci_commands,
            "ci_file": selection_file.read_text().splitlines(),
            "summary": _sh_block(summary.read_text()),
            "plugin": _collected(root, "--warpline-select=HEAD~1..HEAD")}


def _assert_one_selection(root: Path, out: dict[str, Any]) -> set[str]:
    selection = out["envelope"]["data"]["selection"]
    tests = selection["tests"]
    assert tests and selection["tests_selected"] == len(tests)
    command = "pytest " + " ".join(tests)
    assert out["envelope"]["next_actions"]["commands"][0]["command"] == command
    assert f"next: {command}  (" in out["table"]
    header = next(line for line in out["table"].splitlines() if line.startswith("tests: "))
    # The header counts what the command runs: its ids, the whole files among them.
    assert header.startswith(f"tests: {len(tests)} selected (")
    assert f"basis {selection['basis']}" in header
    files = sum(1 for t in tests if "::" not in t)
    assert (f"{files} whole test files" in header) is bool(files)
    assert out["markdown"] == command
    assert out["pytest"].stdout == command + "\n"
    assert out["ci"] == [command] and out["ci_file"] == [command]
    assert out["summary"] == command
    selected = _collected(root, *tests)
    assert out["plugin"] == selected  # the plugin deselects down to the same tests
    return selected


def test_without_a_map_every_output_runs_the_union_with_the_import_floor(
        tmp_path: Path) -> None:
    repo = _project(tmp_path / "project", record=False)
    out = _outputs(repo.path, tmp_path)
    selection = out["envelope"]["data"]["selection"]
    assert selection["basis"] == "static"
    # the three files importing the changed module, whole (the floor), nothing else
    assert set(selection["tests"]) == {"tests/test_basic.py", "tests/test_extended.py",
                                       "tests/test_queue.py"}
    assert selection["floor_files"] == 3
    selected = _assert_one_selection(repo.path, out)
    assert "tests/test_extended.py::test_extended_flashing" in selected
    assert "tests/test_other.py::test_double" not in selected
    # the selection catches the bug, by any of the outputs
    assert run_pytest(repo.path, *selection["tests"], env=ENV).returncode == 1
    assert run_pytest(repo.path, "--warpline-select=HEAD~1..HEAD", env=ENV).returncode == 1


def test_with_a_map_every_output_runs_the_map_selection(tmp_path: Path) -> None:
    repo = _project(tmp_path / "project", record=True)
    out = _outputs(repo.path, tmp_path)
    selection = out["envelope"]["data"]["selection"]
    assert selection["basis"] == "map"
    selected = _assert_one_selection(repo.path, out)
    # the map saw the test that reaches the function through a run-time lookup
    assert selected == {"tests/test_basic.py::test_flashes",
                        "tests/test_extended.py::test_extended_flashing",
                        "tests/test_queue.py::test_queue_starts_empty"}
    assert run_pytest(repo.path, "--warpline-select=HEAD~1..HEAD", env=ENV).returncode == 1
    # a dependent the graph reaches no test through, which the map saw run: counted, not
    # sent to be read by hand
    notify = next(i for i in out["envelope"]["data"]["items"]
                  if i["entity"]["locator"] == "python:function:app.views.view_notify")
    assert notify["map_tests"] == 1
    assert "the test map: 1 tests" in out["table"]


def test_format_pytest_prints_the_warnings_on_stderr(tmp_path: Path) -> None:
    repo = _project(tmp_path / "project", record=False)
    done = _warpline(repo.path, "reverify", "HEAD~1..HEAD", "--format", "pytest")
    assert done.stdout.count("\n") == 1 and done.stdout.startswith("pytest ")
    assert "warpline: warning: No test map" in done.stderr


@pytest.mark.parametrize("record", [False, True])
def test_a_map_that_knows_no_test_is_not_called_static(tmp_path: Path, record: bool) -> None:
    """A function no test runs and no test reaches: with a map consulted the basis is
    ``mixed`` (the floor answered), never ``static``, which means no map (defect 9)."""
    repo = FixtureRepo(tmp_path / "project")
    repo.commit({"app/__init__.py": "", "app/flash.py": FLASH + "\n\ndef unused():\n"
                 "    return 1\n", "app/other.py": OTHER, "tests/__init__.py": "",
                 "tests/test_basic.py": TESTS["tests/test_basic.py"],
                 "tests/test_other.py": TESTS["tests/test_other.py"],
                 ".gitignore": "__pycache__/\n"}, "one")
    if record:
        assert run_pytest(repo.path, "--warpline-record", env=ENV).returncode == 0
    text = (repo.path / "app/flash.py").read_text()
    repo.commit({"app/flash.py": text.replace("return 1", "return 2")}, "two")
    envelope = json.loads(_warpline(repo.path, "reverify", "HEAD~1..HEAD", "--json").stdout)
    selection = envelope["data"]["selection"]
    assert selection["basis"] == ("mixed" if record else "static")
    assert selection["tests"] == ["tests/test_basic.py"]  # the import floor answered
    assert (selection["map_commit"] is not None) is record


def test_past_500_ids_the_selection_itself_names_files(tmp_path: Path) -> None:
    """The command and the plugin both run ``tests``: widening happens in the selection,
    not only in the command (else the plugin would run fewer tests than the command)."""
    from warpline.service.testing.testselect import Selection
    from warpline.service.testing.worklist_tests import commands_of

    (tmp_path / "tests").mkdir()
    for i in range(3):
        (tmp_path / "tests" / f"test_{i}.py").write_text(
            "".join(f"def test_{n}():\n    pass\n" for n in range(i, 501, 3)), encoding="utf-8")
    selection = Selection(basis="static")
    selection.finish(dict.fromkeys(f"tests/test_{i % 3}.py::test_{i}" for i in range(501)))
    assert selection.tests == ["tests/test_0.py", "tests/test_1.py", "tests/test_2.py"]
    command = commands_of(tmp_path, selection, None)[0]
    assert command["command"] == "pytest " + " ".join(selection.tests)
    assert "more than 500 ids" in command["why"]
    small = Selection(basis="static")
    small.finish(dict.fromkeys(["tests/test_0.py::test_1"]))
    assert small.tests == ["tests/test_0.py::test_1"] and not small.widened
