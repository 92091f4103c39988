"""Verification records travel through git: notes under ``refs/notes/warpline``, exchanged
by ``warpline sync`` with a bare "remote" on the local file system (real ``git clone``,
``git fetch``, ``git push``; no network)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo, run_git
from warpline.errors import WarplineError
from warpline.git import notes
from warpline.registry import call_tool

SRC = "def alpha():\n    return 1\n\n\ndef beta():\n    return alpha()\n"



def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "", "GIT_COMMITTER_NAME": ""}
    env = {k: v for k, v in env.items() if v != ""}
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture()
def clones(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(bare remote, CI clone, developer clone) of one two-commit history."""
    origin = FixtureRepo(tmp_path / "origin")
    origin.commit({"app/core.py": SRC}, message="one")
    origin.commit({"app/core.py": SRC.replace("return 1", "return 2")}, message="two")
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(origin.path), str(remote))
    ci, dev = tmp_path / "ci", tmp_path / "dev"
    for path in (ci, dev):
        run_git(tmp_path, "clone", "-q", str(remote), str(path))
    # The CI machine has no git identity of its own (the notes commit must still work).
    run_git(dev, "config", "user.name", "Dev")
    run_git(dev, "config", "user.email", "dev@example.com")
    return remote, ci, dev


def _states(repo: Path) -> list[str]:
    env = call_tool("reverify", {"repo": str(repo), "rev_range": "HEAD~1..HEAD"})
    assert_valid_envelope(env)
    items: list[dict[str, Any]] = env["data"]["items"]
    assert items
    return sorted({item["verification"]["state"] for item in items})


def test_a_ci_pass_pushed_as_a_note_makes_the_developer_clone_fresh(
        clones: tuple[Path, Path, Path]) -> None:
    remote, ci, dev = clones
    assert _states(dev) == ["unverified"]

    recorded = call_tool("verify_record", {"repo": str(ci), "commit": "HEAD",
                                           "kind": "test_pass", "actor": "ci-job-7"})
    assert recorded["data"]["notes_ref"] == notes.NOTES_REF
    pushed = _cli(ci, "sync", "--json")
    assert pushed.returncode == 0, pushed.stderr
    assert json.loads(pushed.stdout)["pushed"] is True
    assert run_git(remote, "for-each-ref", "refs/notes/").strip()

    assert _states(dev) == ["unverified"]  # nothing arrives until the developer syncs
    fetched = _cli(dev, "sync", "origin", "--json")
    assert fetched.returncode == 0, fetched.stderr
    assert json.loads(fetched.stdout)["fetched"] is True
    assert _states(dev) == ["fresh"]

    # The developer's own record of the same pass is the CI's, not a second one.
    again = call_tool("verify_record", {"repo": str(dev), "commit": "HEAD",
                                        "kind": "test_pass", "actor": "dev"})
    assert (again["data"]["idempotency"], again["data"]["actor"]) == (
        "already_recorded", "ci-job-7")
    assert again["data"]["verified_at"] == recorded["data"]["verified_at"]


def test_notes_from_two_machines_merge_by_union(clones: tuple[Path, Path, Path]) -> None:
    _, ci, dev = clones
    call_tool("verify_record", {"repo": str(ci), "commit": "HEAD", "kind": "test_pass"})
    call_tool("verify_record", {"repo": str(dev), "commit": "HEAD", "kind": "lint_pass"})
    call_tool("verify_record", {"repo": str(dev), "commit": "HEAD~1", "kind": "test_pass"})
    for clone in (ci, dev, ci):  # ci pushes, dev merges and pushes, ci fetches the union
        done = _cli(clone, "sync")
        assert done.returncode == 0, done.stderr
    for clone in (ci, dev):
        read = notes.read_all(pygit2.Repository(str(clone)))
        assert sorted((r.commit[:7], r.kind) for r in read.records) == sorted([
            (run_git(clone, "rev-parse", "--short=7", "HEAD").strip(), "test_pass"),
            (run_git(clone, "rev-parse", "--short=7", "HEAD").strip(), "lint_pass"),
            (run_git(clone, "rev-parse", "--short=7", "HEAD~1").strip(), "test_pass"),
        ])
    head = run_git(ci, "rev-parse", "HEAD").strip()
    text = run_git(ci, "notes", "--ref=refs/notes/warpline", "show", head)
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert sorted(line["kind"] for line in lines) == ["lint_pass", "test_pass"]


def test_malformed_note_lines_from_another_machine_are_skipped(
        clones: tuple[Path, Path, Path]) -> None:
    _, ci, _ = clones
    head = run_git(ci, "rev-parse", "HEAD").strip()
    forged = json.dumps({"v": 1, "type": "verification", "commit": "0" * 40,
                         "kind": "test_pass", "source": "warpline", "verified_at": 1})
    run_git(ci, "-c", "user.name=x", "-c", "user.email=x@y", "notes", "--ref=refs/notes/warpline",
         "add", "-m", "not json\n" + forged, head)
    read = notes.read_all(pygit2.Repository(str(ci)))
    assert read.records == [] and read.skipped_lines == 2
    assert _states(ci) == ["unverified"]  # a line naming another commit never counts


def test_sync_with_an_unknown_remote_names_the_field(clones: tuple[Path, Path, Path]) -> None:
    _, ci, _ = clones
    done = _cli(ci, "sync", "nowhere", "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert (error["error_code"], error["rejected_field"]) == ("invalid_argument", "remote")
    refused = _cli(ci, "sync", "--upload-pack=touch x", "--json")
    assert refused.returncode != 0
    assert not (ci / "x").exists()


def test_sync_against_an_unreachable_path_is_peer_unavailable(
        clones: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, ci, _ = clones
    from warpline.service.admin.sync import sync

    with pytest.raises(WarplineError) as caught:
        sync(ci, pygit2.Repository(str(ci)), str(tmp_path / "gone.git"))
    assert caught.value.code == "peer_unavailable"


def test_sync_without_any_notes_anywhere_is_a_quiet_no_op(
        clones: tuple[Path, Path, Path]) -> None:
    remote, ci, _ = clones
    done = _cli(ci, "sync", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["fetched"], report["pushed"]) == (False, False)
    assert not run_git(remote, "for-each-ref", "refs/notes/").strip()


_RECORDER = """
import sys, time
from warpline.registry import call_tool
repo, start, kind = sys.argv[1:]
while time.time() < float(start):
    time.sleep(0.001)
call_tool("verify_record", {"repo": repo, "commit": "HEAD", "kind": kind})
"""


def test_concurrent_recorders_on_one_machine_lose_no_note_line(
        clones: tuple[Path, Path, Path]) -> None:
    import time

    _, ci, _ = clones
    start = str(time.time() + 1.5)
    kinds = [f"job_{n}" for n in range(6)]
    procs = [subprocess.Popen([sys.executable, "-c", _RECORDER, str(ci), start, kind])
             for kind in kinds]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    read = notes.read_all(pygit2.Repository(str(ci)))
    assert sorted(r.kind for r in read.records) == kinds
