"""Map-first selection in ``reverify`` on the framework-style dispatch project.

The truth for "which tests execute the changed function" is coverage.py's own per-test
contexts from a real ``pytest --cov --cov-context=test`` run (pytest-cov), independent of
warpline's recorder; the map the selection uses is recorded by warpline's plugin.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.dispatchproject import ALL_TESTS, make_project, run_pytest
from tests.gitfixture import FixtureRepo
from tests.graphfixture import call
from warpline.cli import main as cli_main
from warpline.runners.pytest_covimport import read_lines
from warpline.store.db import Store

EDITS = {
    # locator: (path, old, new), each a one-statement edit of one function's body
    "python:function:app.views.greet": ("app/views.py", 'return "hello " + who',
                                        'who = str(who)\n    return "hello " + who'),
    "python:function:app.registry.dispatch": ("app/registry.py", "return HANDLERS[name](*args)",
                                              "fn = HANDLERS[name]\n    return fn(*args)"),
    "python:function:app.models.Account.__init__": (
        "app/models.py", "self.balance = balance", "self.balance = balance + 0"),
    "python:function:app.models.Account.display": (
        "app/models.py", 'return self.owner + ": "', 'return str(self.owner) + ": "'),
    "python:function:app.models.make_bank": ("app/models.py", 'return {"ann"',
                                             'bank = None\n    return {"ann"'),
    "python:function:tests.conftest.account": ("tests/conftest.py", 'return Account("ann", 10)',
                                               'made = Account("ann", 10)\n    return made'),
}


@pytest.fixture(autouse=True)
def _builtin_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_EDGE_SOURCES", "builtin")
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "30")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, set[str]]]:
    """The project with a warpline map, and pytest-cov's per-test truth (locator-free:
    test -> (file, line) pairs, mapped per edit below)."""
    root = tmp_path_factory.mktemp("mapped") / "project"
    make_project(root)
    recorded = run_pytest(root, "--warpline-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    truth_run = run_pytest(root, "--cov=app", "--cov=tests", "--cov-context=test",
                           "-p", "no:warpline")
    assert truth_run.returncode == 0, truth_run.stdout + truth_run.stderr
    lines, _ = read_lines(root / ".coverage")
    (root / ".coverage").unlink()
    truth: dict[str, set[str]] = {}
    for locator, (path, old, _) in EDITS.items():
        source = (root / path).read_text()
        line = source[: source.index(old)].count("\n") + 1
        full = str((root / path).resolve())
        truth[locator] = {test for test, files in lines.items()
                          if test and line in files.get(full, set())}
    return root, truth


def _copy(source: Path, tmp_path: Path) -> FixtureRepo:
    target = tmp_path / "project"
    shutil.copytree(source, target, symlinks=True)
    repo = FixtureRepo.__new__(FixtureRepo)
    repo.path, repo.repo, repo._count = target, pygit2.Repository(str(target)), 1
    return repo


def _edit(repo: FixtureRepo, path: str, old: str, new: str) -> None:
    text = (repo.path / path).read_text()
    assert old in text
    repo.commit({path: text.replace(old, new, 1)}, f"edit {path}")


def _reverify(repo: FixtureRepo, **arguments: Any) -> dict[str, Any]:
    return call("reverify", repo=str(repo.path), **arguments)


def _selected(env: dict[str, Any]) -> set[str]:
    command = env["next_actions"]["commands"][0]["command"]
    assert command.startswith("pytest ")
    return set(command.split()[1:])


@pytest.mark.parametrize("locator", sorted(EDITS))
def test_map_selection_contains_every_test_that_executes_the_changed_function(
        project: tuple[Path, dict[str, set[str]]], tmp_path: Path, locator: str) -> None:
    root, truth = project
    repo = _copy(root, tmp_path)
    _edit(repo, *EDITS[locator])
    env = _reverify(repo, rev_range="HEAD~1..HEAD")
    selection = env["data"]["selection"]
    assert selection["basis"] == "map"
    assert selection["map_commits_behind"] == 1
    assert selection["tests_known"] == len(ALL_TESTS)
    assert truth[locator], locator  # the edit is executed by some test
    selected = _selected(env)
    assert truth[locator] <= selected
    assert selection["tests_selected"] == len(selected)
    # Exactly the tests that executed it. pytest-cov sees what a session fixture runs only
    # in its first user; warpline's map gives it to every user (the only extra allowed).
    assert selected - truth[locator] <= {"tests/test_account.py::test_bank_again"}


def test_without_a_map_the_static_basis_is_labelled_and_names_the_record_command(
        tmp_path: Path) -> None:
    repo = make_project(tmp_path / "project")
    _edit(repo, *EDITS["python:function:app.registry.dispatch"])  # called by tests directly
    env = _reverify(repo, rev_range="HEAD~1..HEAD")
    selection = env["data"]["selection"]
    assert selection["basis"] == "static"
    assert selection["map_commit"] is None and selection["map_commits_behind"] is None
    assert selection["tests_selected"] == len(_selected(env)) > 0
    assert any("pytest --warpline-record" in w for w in env["warnings"])


def test_without_a_map_a_change_no_static_path_reaches_is_never_silent(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "project")
    greet = "python:function:app.views.greet"
    _edit(repo, *EDITS[greet])  # reached only through the dispatcher's registry
    env = _reverify(repo, rev_range="HEAD~1..HEAD")
    selection = env["data"]["selection"]
    assert selection["basis"] in ("static", "none")
    if selection["basis"] == "none":
        assert selection["entities_without_tests"] == [greet]
        assert env["next_actions"]["commands"][0]["command"] == "pytest"
    assert any("pytest --warpline-record" in w for w in env["warnings"])


def test_a_changed_test_file_and_a_new_test_are_selected(
        project: tuple[Path, dict[str, set[str]]], tmp_path: Path) -> None:
    root, _ = project
    repo = _copy(root, tmp_path)
    text = (repo.path / "tests/test_account.py").read_text()
    repo.write_worktree("tests/test_account.py", text.replace(
        'assert "ann" in bank', 'assert "ann" in bank and bank'))
    repo.write_worktree("tests/test_new.py", "def test_brand_new():\n    assert True\n")
    env = _reverify(repo, include_worktree=True)
    selected = _selected(env)
    assert "tests/test_account.py::test_bank_again" in selected
    assert "tests/test_new.py::test_brand_new" in selected
    assert env["data"]["selection"]["new_tests"] == 1
    assert "tests/test_dispatch.py::test_greet" not in selected


def test_code_no_test_executed_falls_back_to_the_static_graph_and_says_so(
        project: tuple[Path, dict[str, set[str]]], tmp_path: Path) -> None:
    root, _ = project
    repo = _copy(root, tmp_path)
    _edit(repo, "app/views.py", "return who", "return who + ''")
    env = _reverify(repo, rev_range="HEAD~1..HEAD")
    selection = env["data"]["selection"]
    assert selection["basis"] in ("mixed", "none")
    if selection["basis"] == "none":
        assert selection["entities_without_tests"] == ["python:function:app.views.never_called"]
    else:
        assert selection["entities_from_static"] == 1
    assert env["warnings"]
    assert env["next_actions"]["commands"]  # never an empty list with nothing said


def test_a_registration_run_at_import_selects_the_tests_of_its_file(
        project: tuple[Path, dict[str, set[str]]], tmp_path: Path) -> None:
    root, _ = project
    repo = _copy(root, tmp_path)
    _edit(repo, "app/registry.py", "HANDLERS[name] = fn", "HANDLERS[str(name)] = fn")
    env = _reverify(repo, rev_range="HEAD~1..HEAD")
    assert env["data"]["selection"]["basis"] == "mixed"
    assert {"tests/test_dispatch.py::test_greet",
            "tests/test_dispatch.py::test_shout"} <= _selected(env)


def test_reverify_format_pytest_prints_only_the_command(
        project: tuple[Path, dict[str, set[str]]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = project
    repo = _copy(root, tmp_path)
    _edit(repo, *EDITS["python:function:app.models.Account.display"])
    assert cli_main(["reverify", "HEAD~1..HEAD", "--repo", str(repo.path),
                     "--format", "pytest"]) == 0
    assert capsys.readouterr().out == "pytest tests/test_account.py::test_display\n"


def test_a_stale_map_says_how_stale(project: tuple[Path, dict[str, set[str]]],
                                    tmp_path: Path) -> None:
    root, _ = project
    repo = _copy(root, tmp_path)
    _edit(repo, "app/models.py", "fee = 1", "fee = 2")
    _edit(repo, *EDITS["python:function:app.views.greet"])
    env = _reverify(repo, rev_range="HEAD~1..HEAD")
    selection = env["data"]["selection"]
    assert selection["map_commits_behind"] == 2
    assert selection["map_entities_changed_since"] >= 2
    with Store.open(repo.path) as store:
        (sha,) = store.conn.execute("SELECT commit_sha FROM test_maps").fetchone()
    assert selection["map_commit"] == sha


def test_a_changed_conftest_module_runs_the_tests_under_it(
        project: tuple[Path, dict[str, set[str]]], tmp_path: Path) -> None:
    root, _ = project
    repo = _copy(root, tmp_path)
    _edit(repo, "tests/conftest.py", "import pytest\n", "import pytest  # noqa\nMARK = 1\n")
    env = _reverify(repo, rev_range="HEAD~1..HEAD")
    assert "tests" in _selected(env)
    assert env["data"]["selection"]["basis"] == "map"
