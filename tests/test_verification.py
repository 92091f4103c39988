"""``verify_record``: CI records that a commit passed, once per (commit, kind), safely in
parallel, and the CLI front door ``warpline verify-record``."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.errors import WarplineError
from warpline.registry import call_tool
from warpline.store.db import store_path

SRC = "def alpha():\n    return 1\n"


def _repo(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"app/core.py": SRC}, message="one")
    repo.commit({"app/core.py": SRC.replace("1", "2")}, message="two")
    return repo


def _record(repo: FixtureRepo, commit: str, kind: str, **extra: Any) -> dict[str, Any]:
    envelope = call_tool("verify_record", {"repo": str(repo.path), "commit": commit,
                                           "kind": kind, **extra})
    assert_valid_envelope(envelope)
    data: dict[str, Any] = envelope["data"]
    return data


def _rows(repo: FixtureRepo) -> list[tuple[str, str, str, str | None]]:
    with sqlite3.connect(store_path(repo.path)) as conn:
        rows = conn.execute("SELECT commit_sha, kind, source, actor FROM verifications "
                            "ORDER BY commit_sha, kind").fetchall()
    return [tuple(row) for row in rows]


def _error(arguments: dict[str, Any]) -> WarplineError:
    with pytest.raises(WarplineError) as caught:
        call_tool("warpline_verification_record", arguments)
    assert_valid_envelope(caught.value.to_payload())
    return caught.value


def test_a_symbolic_ref_is_stored_as_the_commit_it_names(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    data = _record(repo, "HEAD", "test_pass", actor="ci")
    assert data["commit_sha"] == repo.head
    assert (data["kind"], data["actor"], data["source"], data["idempotency"]) == (
        "test_pass", "ci", "warpline", "recorded")
    assert _rows(repo) == [(repo.head, "test_pass", "warpline", "ci")]


def test_recording_again_is_already_recorded_and_keeps_one_row(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    first = _record(repo, "main", "ci_pass", actor="job-1")
    again = _record(repo, str(repo.head), "ci_pass", actor="job-2")
    assert again["idempotency"] == "already_recorded"
    # The record is the first one: its time and actor stay.
    assert (again["verified_at"], again["actor"]) == (first["verified_at"], "job-1")
    assert len(_rows(repo)) == 1


def test_kinds_and_commits_are_recorded_separately(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _record(repo, "HEAD", "test_pass")
    _record(repo, "HEAD", "ci_pass")
    _record(repo, "HEAD~1", "test_pass")
    assert len(_rows(repo)) == 3


def test_a_tag_and_a_short_sha_resolve_to_the_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    first = str(repo.repo.revparse_single("HEAD~1").id)
    repo.repo.create_tag("v1", repo.repo.revparse_single("HEAD~1").id,
                         pygit2.enums.ObjectType.COMMIT, repo.repo.default_signature,
                         "release")  # annotated tag object
    assert _record(repo, "v1", "gate_pass")["commit_sha"] == first
    assert _record(repo, first[:8], "gate_pass")["idempotency"] == "already_recorded"


def test_a_bad_ref_is_invalid_rev_range_and_creates_no_store(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    for bad in ("no-such-branch", "HEAD~99", "deadbeef" * 5):
        error = _error({"repo": str(repo.path), "commit": bad, "kind": "test_pass"})
        assert (error.code, error.field) == ("invalid_rev_range", "commit")
    assert not (repo.path / ".weft").exists()


def test_a_ref_naming_a_tree_is_invalid_rev_range(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    tree = str(repo.repo.revparse_single("HEAD^{tree}").id)
    error = _error({"repo": str(repo.path), "commit": tree, "kind": "test_pass"})
    assert error.code == "invalid_rev_range"


@pytest.mark.parametrize(("arguments", "code"), [
    ({"commit": "HEAD", "kind": ""}, "invalid_argument"),
    ({"commit": "HEAD", "kind": "   "}, "invalid_argument"),
    ({"commit": "HEAD"}, "missing_required_field"),
    ({"commit": "HEAD", "kind": 7}, "invalid_argument"),
])
def test_an_empty_or_missing_kind_is_an_error_naming_kind(
        tmp_path: Path, arguments: dict[str, Any], code: str) -> None:
    repo = _repo(tmp_path)
    error = _error({"repo": str(repo.path), **arguments})
    assert (error.code, error.field) == (code, "kind")
    assert not (repo.path / ".weft").exists()


def test_a_missing_commit_is_an_error_naming_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    error = _error({"repo": str(repo.path), "kind": "test_pass"})
    assert (error.code, error.field) == ("missing_required_field", "commit")


def test_a_path_that_is_not_a_repository_is_invalid_repo_and_stays_untouched(
        tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    error = _error({"repo": str(plain), "commit": "HEAD", "kind": "test_pass"})
    assert error.code == "invalid_repo"
    assert list(plain.iterdir()) == []


def _tree_listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts}


def test_recording_without_a_note_writes_only_under_weft_warpline(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    before = _tree_listing(repo.path)
    git_before = {p: p.stat().st_mtime_ns for p in (repo.path / ".git").rglob("*")}
    assert _record(repo, "HEAD", "test_pass", git_note=False)["notes_ref"] is None
    added = _tree_listing(repo.path) - before
    assert added and all(path.startswith(".weft/warpline") or path == ".weft"
                         for path in added), added
    assert {p: p.stat().st_mtime_ns for p in (repo.path / ".git").rglob("*")} == git_before
    assert not repo.repo.status()  # the work tree still looks clean to git


# -- the CLI ------------------------------------------------------------------------------

def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120, env={**os.environ, "NO_COLOR": "1"})


def test_cli_verify_record_prints_the_envelope_with_json(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = _cli("verify-record", "--commit", "HEAD~1", "--kind", "ci_pass", "--actor", "ci",
                  "--repo", str(repo.path), "--json")
    assert result.returncode == 0, result.stderr
    envelope = json.loads(result.stdout)
    assert_valid_envelope(envelope)
    assert envelope["data"]["commit_sha"] == str(repo.repo.revparse_single("HEAD~1").id)
    assert envelope["query"]["arguments"] == {"repo": str(repo.path), "commit": "HEAD~1",
                                              "kind": "ci_pass", "actor": "ci"}


def test_cli_verify_record_says_what_it_did_in_text(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    first = _cli("verify-record", "--commit", "HEAD", "--kind", "test_pass", cwd=repo.path)
    again = _cli("verify-record", "--commit", "HEAD", "--kind", "test_pass", cwd=repo.path)
    assert first.returncode == again.returncode == 0
    assert first.stdout.startswith(f"recorded: test_pass at {repo.head}")
    assert again.stdout.startswith("already recorded:")


def test_cli_bad_ref_exits_1_with_the_error_envelope_and_no_traceback(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = _cli("verify-record", "--commit", "nope", "--kind", "test_pass",
                  "--repo", str(repo.path), "--json")
    assert result.returncode == 1
    error = json.loads(result.stdout)
    assert_valid_envelope(error)
    assert (error["error_code"], error["rejected_field"]) == ("invalid_rev_range", "commit")
    assert "Traceback" not in result.stderr
    text = _cli("verify-record", "--commit", "nope", "--kind", "test_pass", cwd=repo.path)
    assert text.returncode == 1
    assert "invalid_rev_range" in text.stderr
    assert "Traceback" not in text.stderr


# -- several CI jobs at once ----------------------------------------------------------------

_WORKER = """
import sys, time
from warpline.registry import call_tool
repo, start, *jobs = sys.argv[1:]
while time.time() < float(start):
    time.sleep(0.001)
for job in jobs:
    commit, kind = job.split("=")
    call_tool("verify_record", {"repo": repo, "commit": commit, "kind": kind, "actor": "w"})
"""


def test_concurrent_processes_recording_at_once_lose_nothing(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    shas = [repo.commit({"app/core.py": SRC.replace("1", str(n))}, message=f"c{n}")
            for n in range(4)]
    workers = 8
    # Every worker records its own kind on every commit, plus one shared kind that all of
    # them race on: 8 x 4 distinct rows, and 4 shared rows that must collapse to one each.
    jobs = [[f"{sha}=own_{w}" for sha in shas] + [f"{sha}=shared" for sha in shas]
            for w in range(workers)]
    start = time.time() + 2.0  # every worker is up and waiting before the first write
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(repo.path), str(start),
                               *job], stderr=subprocess.PIPE, text=True) for job in jobs]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    rows = _rows(repo)
    expected = {(sha, f"own_{w}") for sha in shas for w in range(workers)} | {
        (sha, "shared") for sha in shas}
    assert {(sha, kind) for sha, kind, _, _ in rows} == expected
    assert len(rows) == len(expected) == workers * len(shas) + len(shas)
