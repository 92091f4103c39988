"""``warpline import-coverage``: a map from a real pytest-cov data file (``--cov-context=
test``), its errors through the closed vocabulary, and paths recorded in another checkout."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.dispatchproject import ALL_TESTS, make_project, run_pytest
from warpline.cli import main as cli_main
from warpline.store.db import Store
from warpline.store.testmaps import hits_by_test, maps

GREET = "python:function:app.views.greet"


@pytest.fixture(scope="module")
def covered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("covered") / "project"
    make_project(root)
    result = run_pytest(root, "--cov=app", "--cov=tests", "--cov-context=test",
                        "-p", "no:warpline")
    assert result.returncode == 0, result.stdout + result.stderr
    shutil.move(root / ".coverage", root.parent / "per-test.coverage")
    return root


def _import(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = cli_main(["import-coverage", *args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def test_import_builds_the_map_pytest_cov_recorded(covered: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "project"
    shutil.copytree(covered, repo)
    code, summary = _import(capsys, str(covered.parent / "per-test.coverage"),
                            "--repo", str(repo))
    assert code == 0
    assert summary["tests"] == len(ALL_TESTS) and summary["source"] == "coverage-import"
    with Store.open(repo) as store:
        row = maps(store)[0]
        hits = hits_by_test(store, row.id)
    assert set(hits) == ALL_TESTS
    assert {t for t, locs in hits.items() if GREET in locs} == {
        "tests/test_dispatch.py::test_greet", "tests/test_dispatch.py::test_shout"}
    # setup, run and teardown phases are one test: the fixture counts for it.
    assert "python:function:tests.conftest.account" in hits["tests/test_account.py::test_display"]


def test_paths_recorded_in_another_checkout_match_by_suffix(
        covered: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moved = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(covered, moved)  # the data still names the original absolute paths
    code, summary = _import(capsys, str(covered.parent / "per-test.coverage"),
                            "--repo", str(moved))
    assert code == 0 and summary["tests"] == len(ALL_TESTS)
    with Store.open(moved) as store:
        hits = hits_by_test(store, maps(store)[0].id)
    assert GREET in hits["tests/test_dispatch.py::test_greet"]


def test_a_missing_file_is_invalid_argument(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_project(tmp_path / "project")
    code, payload = _import(capsys, str(tmp_path / "nope.coverage"), "--repo", str(repo.path))
    assert code == 1
    assert (payload["error_code"], payload["rejected_field"]) == (
        "invalid_argument", "coverage_file")


def test_a_file_that_is_not_coverage_data_is_invalid_argument(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_project(tmp_path / "project")
    junk = tmp_path / "junk.coverage"
    junk.write_bytes(b"not sqlite at all\n" * 10)
    code, payload = _import(capsys, str(junk), "--repo", str(repo.path))
    assert code == 1 and payload["error_code"] == "invalid_argument"
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    code, payload = _import(capsys, str(other), "--repo", str(repo.path))
    assert code == 1 and payload["error_code"] == "invalid_argument"


def test_data_without_per_test_contexts_is_refused(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_project(tmp_path / "project")
    result = run_pytest(repo.path, "--cov=app", "-p", "no:warpline")
    assert result.returncode == 0, result.stdout + result.stderr
    code, payload = _import(capsys, str(repo.path / ".coverage"), "--repo", str(repo.path))
    assert code == 1
    assert (payload["error_code"], payload["rejected_field"]) == (
        "invalid_argument", "coverage_file")


def test_a_runner_without_a_coverage_import_is_invalid_argument(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_project(tmp_path / "project")
    code, payload = _import(capsys, str(tmp_path / "x.out"), "--runner", "no-such-runner",
                            "--repo", str(repo.path))
    assert code == 1
    assert (payload["error_code"], payload["rejected_field"]) == ("invalid_argument", "runner")
