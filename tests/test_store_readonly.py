"""A store on a REAL read-only filesystem and on a REAL full disk
(``warpline.store.readonly``), as root too.

Each test prepares a real repository and store here, then runs warpline (CLI and MCP) in a
child process inside a private mount namespace (tests/namespace.py) where the repository
is bind-mounted read-only, or the store directory is a tiny tmpfs. Permission bits are not
used: root ignores them, the kernel's EROFS and ENOSPC it does not.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import namespace
from tests.gitfixture import FixtureRepo
from warpline.contracts_io import validate_envelope
from warpline.store.db import store_path

pytestmark = pytest.mark.skipif(namespace.unavailable() is not None,
                                reason=str(namespace.unavailable()))

EVENTS = ("SELECT c.sha, e.locator, ev.change_kind, ev.path, ev.previous_locator, "
          "ev.previous_path FROM change_events ev JOIN commits c ON c.id = ev.commit_id "
          "JOIN entities e ON e.id = ev.entity_id ORDER BY 1, 2, 3, 4")
READ_TOOLS = ("changed", "timeline", "churn", "impact", "reverify", "project_status")


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "warpline.cli", *args]


def _envelope(result: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = json.loads(result["stdout"])
    return envelope


def _run_here(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = subprocess.run(_cli(*args), capture_output=True, text=True, timeout=600,
                          env=env)
    assert done.returncode == 0, done.stderr
    envelope: dict[str, Any] = json.loads(done.stdout)
    return envelope


def _history(tmp_path: Path, commits: int = 4) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    for i in range(commits):
        repo.commit({"pkg/core.py": f"def base(x):\n    return x + {i}\n",
                     "pkg/use.py": ("from pkg.core import base\n\n\n"
                                    f"def caller(y):\n    return base(y) * {i + 1}\n")},
                    f"commit {i}")
    subprocess.run(["git", "-C", str(repo.path), "reset", "-q", "--hard"], check=True)
    return repo


def _reads(root: Path) -> list[list[str]]:
    """One CLI read per read tool, on the last two commits."""
    r = str(root)
    return [_cli("changed", "HEAD~2..HEAD", "--repo", r, "--json"),
            _cli("timeline", "python:function:pkg.core.base", "--repo", r, "--json"),
            _cli("churn", "python:function:pkg.core.base", "--repo", r, "--json"),
            _cli("blast-radius", "HEAD~2..HEAD", "--repo", r, "--json"),
            _cli("reverify", "HEAD~2..HEAD", "--repo", r, "--json"),
            _cli("status", "--repo", r, "--json")]


def _mcp_reads(root: Path) -> list[list[Any]]:
    r = str(root)
    return [["changed", {"repo": r, "rev_range": "HEAD~2..HEAD"}],
            ["timeline", {"repo": r, "entity_ref": {"kind": "locator",
                                                     "value": "python:function:pkg.core.base"}}],
            ["churn", {"repo": r, "entity_refs": ["python:function:pkg.core.base"]}],
            ["blast_radius", {"repo": r, "rev_range": "HEAD~2..HEAD"}],
            ["reverify", {"repo": r, "rev_range": "HEAD~2..HEAD"}],
            ["project_status", {"repo": r}]]


def _mcp_envelope(reply: dict[str, Any]) -> dict[str, Any]:
    assert "result" in reply, reply
    envelope: dict[str, Any] = json.loads(reply["result"]["content"][0]["text"])
    return envelope


def _mcp_error(reply: dict[str, Any]) -> dict[str, Any]:
    assert "error" in reply, reply
    payload: dict[str, Any] = reply["error"]["data"]
    return payload


def _digest(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.iterdir()) if p.is_file()}


def _comparable(envelope: dict[str, Any]) -> Any:
    """An envelope without what differs between two runs on one state (ages, timings)."""
    text = json.dumps(envelope, sort_keys=True)
    data = json.loads(text)
    data.get("data", {}).pop("timing", None)
    data.get("data", {}).pop("checked_at", None)
    return data


def _prepared(tmp_path: Path) -> FixtureRepo:
    """A repository with a caught-up store and an edge snapshot at HEAD."""
    repo = _history(tmp_path)
    _run_here("backfill", "--repo", str(repo.path), "--json")
    _run_here("capture-snapshot", "--repo", str(repo.path), "--json")
    return repo


@pytest.mark.parametrize("sidecars", [False, True], ids=["clean-close", "sidecars-left"])
def test_read_tools_on_a_caught_up_store_on_a_read_only_filesystem_answer_normally(
        tmp_path: Path, sidecars: bool) -> None:
    """Without ``-wal``/``-shm`` (the last writer's clean close) SQLite's ``mode=ro``
    cannot open a WAL store on a read-only mount, and the store opens ``immutable``; with
    them (a read-only reader leaves an empty log and its index behind) ``mode=ro`` works."""
    repo = _prepared(tmp_path)
    here = [_run_here(*argv[3:]) for argv in _reads(repo.path)]
    state = store_path(repo.path).parent
    wal = state / "warpline.db-wal"
    assert wal.stat().st_size == 0  # the read-only reads above wrote no frame
    if not sidecars:
        for name in ("warpline.db-wal", "warpline.db-shm"):
            (state / name).unlink()
    before = _digest(state)
    results = namespace.run([["ro", str(repo.path)],
                             *[["run", argv] for argv in _reads(repo.path)],
                             ["mcp", _mcp_reads(repo.path)],
                             ["run", ["touch", str(state / "probe")]]], tmp_path)
    cli, mcp, touch = results[1:len(here) + 1], results[len(here) + 1], results[-1]
    assert touch["rc"] != 0  # the mount really is read-only, for root too
    for expected, got in zip(here, cli, strict=True):
        assert got["rc"] == 0, got["stderr"]
        envelope = _envelope(got)
        validate_envelope(envelope)
        assert _comparable(envelope) == _comparable(expected)
        assert envelope["warnings"] == expected["warnings"]
    for (tool, _), reply in zip(_mcp_reads(repo.path), mcp[:-1], strict=True):
        envelope = _mcp_envelope(reply)
        validate_envelope(envelope)
        if tool != "project_status":
            assert envelope["data"]["ingest"]["complete"] is True, tool
    assert "result" in mcp[-1]  # ping
    assert _digest(state) == before


def test_a_read_only_mount_with_an_uncheckpointed_wal_reads_the_wal(tmp_path: Path) -> None:
    """Commits that sit only in ``-wal`` (a reader pinned the checkpoint): the read-only
    reader uses the log (``mode=ro``), never ``immutable`` (which would miss them)."""
    repo = _history(tmp_path, commits=3)
    _run_here("backfill", "--repo", str(repo.path), "--json")
    newest = repo.commit({"pkg/core.py": "def base(x):\n    return x - 1\n"}, "later")
    subprocess.run(["git", "-C", str(repo.path), "reset", "-q", "--hard"], check=True)
    db = store_path(repo.path)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN")
        holder.execute("SELECT count(*) FROM commits").fetchone()  # pins the checkpoint
        _run_here("backfill", "--repo", str(repo.path), "--json")
        wal = db.with_name(db.name + "-wal")
        assert wal.stat().st_size > 32
        results = namespace.run([
            ["ro", str(repo.path)],
            ["run", _cli("changed", "HEAD~1..HEAD", "--repo", str(repo.path), "--json")],
            ["mcp", [["changed", {"repo": str(repo.path), "rev_range": "HEAD~1..HEAD"}]]],
        ], tmp_path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    cli, mcp = _envelope(results[1]), _mcp_envelope(results[2][0])
    for envelope in (cli, mcp):
        assert envelope["data"]["ingest"] == {**envelope["data"]["ingest"],
                                              "commits_behind": 0, "complete": True}
        assert {item["commit"] for item in envelope["data"]["items"]
                if item["origin"] == "commit"} == {newest}


def test_behind_head_on_a_read_only_filesystem_answers_stale_with_the_cause(
        tmp_path: Path) -> None:
    repo = _prepared(tmp_path)
    here = _run_here("changed", "HEAD~1..HEAD", "--repo", str(repo.path), "--json")
    stored = {item["commit"] for item in here["data"]["items"]}
    newest = repo.commit({"pkg/core.py": "def base(x):\n    return x * 7\n"}, "not ingested")
    subprocess.run(["git", "-C", str(repo.path), "reset", "-q", "--hard"], check=True)
    state = store_path(repo.path).parent
    before = _digest(state)
    results = namespace.run([["ro", str(repo.path)],
                             *[["run", argv] for argv in _reads(repo.path)],
                             ["mcp", _mcp_reads(repo.path)]], tmp_path)
    cli, mcp = results[1:-1], results[-1]
    envelopes = [_envelope(r) for r in cli] + [_mcp_envelope(r) for r in mcp[:-1]]
    tools = [*READ_TOOLS, *READ_TOOLS]
    for tool, envelope in zip(tools, envelopes, strict=True):
        validate_envelope(envelope)
        assert envelope["ok"] is True, (tool, envelope)
        if tool == "project_status":
            assert envelope["data"]["store"]["commits_behind_head"] == 1
            continue
        assert envelope["data"]["ingest"]["commits_behind"] == 1, tool
        assert envelope["data"]["ingest"]["complete"] is False, tool
        assert envelope["data"]["ingest"]["ingested_now"] == 0, tool
        assert envelope["warnings"], tool  # the cause is named, never a confident answer
    for envelope in (envelopes[0], envelopes[len(READ_TOOLS)]):  # changed, CLI and MCP
        commits = {item["commit"] for item in envelope["data"]["items"]
                   if item["origin"] == "commit"}
        assert newest not in commits and commits <= stored | {None}
    assert "result" in mcp[-1]
    assert _digest(state) == before


def test_writes_on_a_read_only_filesystem_are_store_unwritable(tmp_path: Path) -> None:
    repo = _prepared(tmp_path)
    repo.commit({"pkg/core.py": "def base(x):\n    return 0\n"}, "to ingest")
    subprocess.run(["git", "-C", str(repo.path), "reset", "-q", "--hard"], check=True)
    r = str(repo.path)
    state = store_path(repo.path).parent
    before = _digest(state)
    writes = [_cli("verify-record", "--commit", "HEAD", "--kind", "test_pass", "--repo", r,
                   "--json"),
              _cli("capture-snapshot", "--repo", r, "--json"),
              _cli("backfill", "--repo", r, "--json"),
              _cli("ingest-commit", "HEAD", "--repo", r, "--json")]
    results = namespace.run([
        ["ro", r], *[["run", argv] for argv in writes],
        ["mcp", [["verify_record", {"repo": r, "commit": "HEAD", "kind": "test_pass"}],
                 ["capture_snapshot", {"repo": r}]]]], tmp_path)
    for result in results[1:-1]:
        assert result["rc"] == 1, result
        error = _envelope(result)
        assert (error["error_code"], error["retryability"]) == ("store_unwritable",
                                                                "retry_safe"), error
    for reply in results[-1][:-1]:
        error = _mcp_error(reply)
        assert (error["error_code"], error["retryability"]) == ("store_unwritable",
                                                                "retry_safe"), error
    assert _digest(state) == before
    # The same calls succeed once the filesystem is writable: nothing was lost.
    done = _run_here("verify-record", "--commit", "HEAD", "--kind", "test_pass",
                     "--repo", r, "--json")
    assert done["data"]["idempotency"] == "recorded"


def _big_history(tmp_path: Path, commits: int) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    for i in range(commits):
        body = "".join(f"def f{i % 7}_{j}(x):\n    return x + {i * j}\n\n\n" for j in range(12))
        repo.commit({f"pkg/m{i % 9}.py": body, f"docs/n{i % 5}.txt": f"{i}\n" * 40},
                    f"commit {i}")
    subprocess.run(["git", "-C", str(repo.path), "reset", "-q", "--hard"], check=True)
    return repo


def _clean_events(tmp_path: Path, repo: FixtureRepo) -> list[list[Any]]:
    """The events a clean backfill of the same history stores (a clone of it)."""
    clone = tmp_path / "clean"
    subprocess.run(["git", "clone", "-q", str(repo.path), str(clone)], check=True)
    _run_here("backfill", "--repo", str(clone), "--json")
    with sqlite3.connect(store_path(clone)) as conn:
        return [list(row) for row in conn.execute(EVENTS)]


@pytest.mark.parametrize("workers", ["0", "2"])
def test_disk_full_during_backfill_keeps_every_commit_and_resumes_to_a_clean_run(
        tmp_path: Path, workers: str) -> None:
    repo = _big_history(tmp_path, 320)
    clean = _clean_events(tmp_path, repo)
    r = str(repo.path)
    state = repo.path / ".weft" / "warpline"
    state.mkdir(parents=True)  # the mount point of the tiny filesystem
    db = str(state / "warpline.db")
    env_cli = ["env", f"WARPLINE_INGEST_WORKERS={workers}",
               *_cli("backfill", "--repo", r, "--json")]
    results = namespace.run([
        ["tmpfs", str(state), "400k"],
        ["run", env_cli],
        ["sql", db, EVENTS],
        ["sql", db, "SELECT count(*) FROM commits"],
        ["sql", db, "SELECT count(*) FROM ingest_failures"],
        ["resize", str(state), "64m"],
        ["run", env_cli],
        ["sql", db, EVENTS],
    ], tmp_path)
    full, partial, (count,), (failures,), _, resumed, final = results[1:]
    assert full["rc"] == 1, full
    error = _envelope(full)
    assert (error["error_code"], error["retryability"]) == ("store_unwritable", "retry_safe")
    assert 0 < count[0] < 320  # the disk filled part-way; what was committed is kept
    assert failures == [0]  # nothing was recorded as a failed commit
    kept = {row[0] for row in partial}
    assert partial == [row for row in clean if row[0] in kept]  # every kept commit whole
    assert resumed["rc"] == 0, resumed
    summary = _envelope(resumed)
    assert (summary["failures"], summary["complete"]) == ([], True)
    assert summary["commits_ingested"] == 320 - count[0]
    assert final == clean


def test_disk_full_during_record_is_retry_safe(tmp_path: Path) -> None:
    repo = _history(tmp_path, commits=3)
    r = str(repo.path)
    state = repo.path / ".weft" / "warpline"
    state.mkdir(parents=True)
    db = str(state / "warpline.db")
    record = _cli("verify-record", "--commit", "HEAD", "--kind", "test_pass", "--repo", r,
                  "--json")
    results = namespace.run([
        ["tmpfs", str(state), "2m"],
        ["run", _cli("backfill", "--repo", r, "--json")],
        ["fill", str(state)],
        ["run", record],
        ["mcp", [["verify_record", {"repo": r, "commit": "HEAD", "kind": "test_pass"}],
                 ["changed", {"repo": r, "rev_range": "HEAD~1..HEAD"}]]],
        ["sql", db, "SELECT count(*) FROM verifications"],
        ["unfill", str(state)],
        ["run", record],
        ["run", record],
        ["sql", db, "SELECT count(*) FROM verifications"],
    ], tmp_path)
    backfill, filled, refused, mcp, (before,), _, first, again, (after,) = results[1:]
    assert backfill["rc"] == 0 and filled > 0
    error = _envelope(refused)
    assert (refused["rc"], error["error_code"], error["retryability"]) == (
        1, "store_unwritable", "retry_safe")
    assert _mcp_error(mcp[0])["error_code"] == "store_unwritable"
    assert _mcp_envelope(mcp[1])["data"]["ingest"]["complete"] is True  # reads still answer
    assert before == [0]
    assert _envelope(first)["data"]["idempotency"] == "recorded"
    assert _envelope(again)["data"]["idempotency"] == "already_recorded"
    assert after == [1]


def test_the_hooks_on_a_read_only_filesystem_exit_0_and_reads_stay_honest(
        tmp_path: Path) -> None:
    """A git hook's ingest (``hook-ingest``) can neither take its lock nor write: it exits
    0 as hooks must (a commit is never failed), and the next read still says it is behind."""
    repo = _history(tmp_path, commits=3)
    r = str(repo.path)
    _run_here("install", "--repo", r, "--json")
    repo.commit({"pkg/core.py": "def base(x):\n    return -x\n"}, "no hook ran")
    results = namespace.run([
        ["ro", r],
        ["run", _cli("hook-ingest", "--repo", r, "--hook", "post-commit")],
        ["run", _cli("changed", "HEAD~1..HEAD", "--repo", r, "--json")],
    ], tmp_path)
    hook, read = results[1:]
    assert hook["rc"] == 0, hook["stderr"]
    ingest = _envelope(read)["data"]["ingest"]
    assert (ingest["commits_behind"], ingest["complete"]) == (1, False)


def test_the_skip_reason_is_real() -> None:
    """When this module runs, the namespace really mounts (the probe is not a guess)."""
    assert namespace.unavailable() is None
    assert os.path.exists(namespace.STEPS)
