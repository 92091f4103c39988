"""The pytest plugin, run for real: ``pytest --warpline-record`` in a subprocess over a real
git repository records a map into the real store; ``-n 2`` (pytest-xdist) gives the same
map; ``--warpline-select`` deselects what the change does not need; ``--warpline-verify``
records a pass. The recorded project reaches its code through a dispatcher, fixtures (one
session-scoped), a property and a constructor (``tests/dispatchproject.py``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.dispatchproject import ALL_TESTS, make_project, run_pytest
from tests.gitfixture import FixtureRepo
from warpline.store.db import Store, store_path
from warpline.store.testmaps import MapRow, hits_by_test, maps

GREET = "python:function:app.views.greet"
SHOUT = "python:function:app.views.shout"
INIT = "python:function:app.models.Account.__init__"
DISPLAY = "python:function:app.models.Account.display"
MAKE_BANK = "python:function:app.models.make_bank"
NEVER = "python:function:app.views.never_called"
ROUTE = "python:function:app.registry.route"


def _latest_map(root: Path) -> tuple[MapRow, dict[str, set[str]]]:
    with Store.open(root) as store:
        row = maps(store)[0]
        return row, hits_by_test(store, row.id)


def _passed(stdout: str) -> set[str]:
    """The node ids pytest -vv reported PASSED (serial or xdist layout)."""
    return {word for line in stdout.splitlines() if "PASSED" in line
            for word in line.split() if "::" in word}


def _tests_executing(hits: dict[str, set[str]], locator: str) -> set[str]:
    return {test for test, locators in hits.items() if locator in locators}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dispatch project with one serial recording (copied by tests that change it)."""
    root = tmp_path_factory.mktemp("recorded") / "project"
    make_project(root)
    result = run_pytest(root, "--warpline-record")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


def _copy(recorded: Path, tmp_path: Path) -> FixtureRepo:
    target = tmp_path / "project"
    shutil.copytree(recorded, target, symlinks=True)
    repo = FixtureRepo.__new__(FixtureRepo)
    import pygit2

    repo.path, repo.repo, repo._count = target, pygit2.Repository(str(target)), 1
    return repo


def test_recording_maps_each_test_to_the_entities_it_executed(recorded: Path) -> None:
    row, hits = _latest_map(recorded)
    assert set(hits) == ALL_TESTS
    assert row.source == "pytest-plugin" and row.partial == [] and row.failed_tests == 0
    # Through the dispatcher's registry: invisible to a static call graph.
    assert _tests_executing(hits, GREET) == {"tests/test_dispatch.py::test_greet",
                                             "tests/test_dispatch.py::test_shout"}
    assert _tests_executing(hits, SHOUT) == {"tests/test_dispatch.py::test_shout"}
    # A fixture injected by name calls the constructor; a property read as an attribute.
    assert _tests_executing(hits, DISPLAY) == {"tests/test_account.py::test_display"}
    assert {"tests/test_account.py::test_display", "tests/test_account.py::test_deposit"} \
        <= _tests_executing(hits, INIT)
    # A session fixture runs once, yet every test using it depends on what it ran.
    assert _tests_executing(hits, MAKE_BANK) == {"tests/test_account.py::test_bank_owner",
                                                 "tests/test_account.py::test_bank_again"}
    assert _tests_executing(hits, NEVER) == set()
    assert _tests_executing(hits, "python:class:tests.test_account.TestPlain") == {
        "tests/test_account.py::TestPlain::test_arithmetic"}


def test_module_level_code_run_at_import_belongs_to_the_module(recorded: Path) -> None:
    with Store.open(recorded) as store:
        row = maps(store)[0]
        at_import = {loc for loc, imp in store.conn.execute(
            "SELECT locator, at_import FROM test_map_entities WHERE map_id = ?", (row.id,))
            if imp}
    # The decorator factory ran while test_dispatch.py was imported at collection.
    assert {"python:module:app.views", "python:module:app.registry", ROUTE} <= at_import
    # Defining a function at import is not executing it.
    assert GREET not in at_import and NEVER not in at_import


def test_xdist_two_workers_record_the_same_map(recorded: Path, tmp_path: Path) -> None:
    repo = _copy(recorded, tmp_path)
    _, serial = _latest_map(repo.path)
    result = run_pytest(repo.path, "--warpline-record", "-n", "2", "-p", "no:benchmark")
    assert result.returncode == 0, result.stdout + result.stderr
    row, parallel = _latest_map(repo.path)
    assert parallel == serial
    assert row.test_count == len(ALL_TESTS)


def test_the_plugin_is_inactive_unless_asked(tmp_path: Path) -> None:
    repo = make_project(tmp_path / "project")
    result = run_pytest(repo.path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not store_path(repo.path).exists()
    result = run_pytest(repo.path, env={"WARPLINE_RECORD": "1"})
    assert result.returncode == 0
    _, hits = _latest_map(repo.path)
    assert set(hits) == ALL_TESTS


def test_a_narrowed_run_records_a_partial_map(recorded: Path, tmp_path: Path) -> None:
    repo = _copy(recorded, tmp_path)
    result = run_pytest(repo.path, "--warpline-record", "-k", "greet")
    assert result.returncode == 0, result.stdout + result.stderr
    row, hits = _latest_map(repo.path)
    assert set(hits) == {"tests/test_dispatch.py::test_greet"}
    assert row.partial  # named in every selection made from it
    # Under xdist the workers deselect: the controller still learns the map is partial.
    result = run_pytest(repo.path, "--warpline-record", "-n", "2", "-p", "no:benchmark",
                        "--deselect", "tests/test_dispatch.py::test_shout")
    assert result.returncode == 0, result.stdout + result.stderr
    row, hits = _latest_map(repo.path)
    assert set(hits) == ALL_TESTS - {"tests/test_dispatch.py::test_shout"}
    assert row.partial


def test_select_runs_only_the_tests_that_executed_the_change(recorded: Path,
                                                             tmp_path: Path) -> None:
    repo = _copy(recorded, tmp_path)
    source = (repo.path / "app/views.py").read_text()
    edited = source.replace('return "hello " + who', 'who = who.strip()\n    return "hello " + who')
    repo.write_worktree("app/views.py", edited)
    result = run_pytest(repo.path, "--warpline-select", "-v", "-v")
    assert result.returncode == 0, result.stdout + result.stderr
    ran = _passed(result.stdout)
    assert ran == {"tests/test_dispatch.py::test_greet", "tests/test_dispatch.py::test_shout"}
    assert "5 deselected" in result.stdout


def test_select_with_a_range_and_under_xdist(recorded: Path, tmp_path: Path) -> None:
    repo = _copy(recorded, tmp_path)
    source = (repo.path / "app/models.py").read_text()
    repo.commit({"app/models.py": source.replace("self.owner + \": \" + str(self.balance)",
                                                  "f'{self.owner}: {self.balance}'")},
                "edit display")
    result = run_pytest(repo.path, "--warpline-select=HEAD~1..HEAD", "-n", "2",
                        "-p", "no:benchmark", "-v", "-v")
    assert result.returncode == 0, result.stdout + result.stderr
    ran = _passed(result.stdout)
    assert ran == {"tests/test_account.py::test_display"}


@pytest.mark.parametrize("xdist", [(), ("-n", "2", "-p", "no:benchmark")])
def test_a_range_of_only_cosmetic_changes_runs_nothing_and_records_nothing(
        recorded: Path, tmp_path: Path, xdist: tuple[str, ...]) -> None:
    # reverify, its formats and `warpline ci` propose no test for it: the plugin agrees,
    # the run succeeds, and no pass is recorded from a run of no test.
    repo = _copy(recorded, tmp_path)
    source = (repo.path / "app/models.py").read_text()
    edited = source.replace("        return self.owner",
                            "        # owner first\n        return self.owner")
    repo.commit({"app/models.py": edited}, "comment display")
    result = run_pytest(repo.path, "--warpline-select=HEAD~1..HEAD", "--warpline-verify",
                        "test_pass", "-v", *xdist)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _passed(result.stdout) == set()
    assert "deselected" in result.stdout.splitlines()[-1] or xdist  # every test, by us
    with Store.open(repo.path) as store:
        rows = store.conn.execute("SELECT commit_sha FROM verifications").fetchall()
    assert (repo.head,) not in rows


def test_verify_records_a_pass_and_never_a_failure(recorded: Path, tmp_path: Path) -> None:
    repo = _copy(recorded, tmp_path)
    result = run_pytest(repo.path, "--warpline-verify", "test_pass")
    assert result.returncode == 0, result.stdout + result.stderr
    with Store.open(repo.path) as store:
        rows = store.conn.execute("SELECT commit_sha, kind, actor FROM verifications").fetchall()
    assert rows == [(repo.head, "test_pass", "pytest")]
    repo.commit({"tests/test_fail.py": "def test_fails():\n    assert False\n"}, "a failure")
    result = run_pytest(repo.path, "--warpline-verify", "test_pass")
    assert result.returncode == 1
    with Store.open(repo.path) as store:
        shas = {r[0] for r in store.conn.execute("SELECT commit_sha FROM verifications")}
    assert repo.head not in shas
    # A passing run over uncommitted changes tested the working tree, not HEAD.
    repo.write_worktree("tests/test_fail.py", "def test_fails():\n    assert True\n")
    result = run_pytest(repo.path, "--warpline-verify", "test_pass")
    assert result.returncode == 0, result.stdout + result.stderr
    with Store.open(repo.path) as store:
        shas = {r[0] for r in store.conn.execute("SELECT commit_sha FROM verifications")}
    assert repo.head not in shas


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
                   cwd=cwd, check=True, capture_output=True, timeout=60)


def test_select_by_default_takes_the_commits_not_on_the_upstream(recorded: Path,
                                                                  tmp_path: Path) -> None:
    repo = _copy(recorded, tmp_path)
    remote = tmp_path / "remote.git"
    _git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(remote))
    _git(repo.path, "remote", "add", "origin", str(remote))
    _git(repo.path, "fetch", "-q", "origin")
    _git(repo.path, "branch", "-q", "--set-upstream-to=origin/main", "main")
    source = (repo.path / "app/views.py").read_text()
    (repo.path / "app/views.py").write_text(source.replace(
        "return greet(who).upper()", "loud = greet(who)\n    return loud.upper()"))
    _git(repo.path, "commit", "-q", "-am", "edit shout, not pushed")
    result = run_pytest(repo.path, "--warpline-select", "-v", "-v")
    assert result.returncode == 0, result.stdout + result.stderr
    assert _passed(result.stdout) == {"tests/test_dispatch.py::test_shout"}
    _git(repo.path, "push", "-q", "origin", "main")  # now nothing is ahead of the upstream
    result = run_pytest(repo.path, "--warpline-select", "-v", "-v")
    assert result.returncode == 5, result.stdout + result.stderr  # every test deselected
    assert _passed(result.stdout) == set()


def test_bad_input_is_a_usage_error_and_outside_git_nothing_is_recorded(
        recorded: Path, tmp_path: Path) -> None:
    repo = _copy(recorded, tmp_path / "a")
    result = run_pytest(repo.path, "--warpline-select=no-such-rev..HEAD")
    assert result.returncode == 4  # pytest's usage error: nothing ran
    assert "invalid_rev_range" in result.stderr
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "test_x.py").write_text("def test_x():\n    assert True\n")
    result = run_pytest(loose, "--warpline-record")
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (loose / ".weft").exists()
