"""First answers on a long history: a budgeted catch-up ingests the newest commits first, a
range that is wholly ingested reads as whole, and the rest of the backfill continues in a
detached ``hook-ingest`` (``service/shared/background.py``) under the ingest lock, so later
calls stop spending their budget on it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.git.repo import open_repo
from warpline.ingest import driver as ingest
from warpline.ingest import lock as ingestlock
from warpline.ingest.driver import Ingestor
from warpline.registry import call_tool
from warpline.store.db import Store, store_path


def _history(tmp_path: Path, commits: int = 30) -> tuple[FixtureRepo, list[str]]:
    repo = FixtureRepo(tmp_path / "repo")
    shas = []
    for n in range(commits):
        body = "\n\n".join(f"def f{k}():\n    return {k * n}\n" for k in range(3))
        shas.append(repo.commit({f"pkg/m{n % 4}.py": body}, message=f"c{n}"))
    return repo, shas


def _commits(handle: pygit2.Repository, shas: list[str]) -> list[pygit2.Commit]:
    return [handle[sha].peel(pygit2.Commit) for sha in shas]


def _stored(root: Path) -> set[str]:
    with Store.open(root) as store:
        return {str(r[0]) for r in store.conn.execute("SELECT sha FROM commits")}


class _TickingTime:
    """``time`` for the ingest module: each ``monotonic()`` read is a second later, so a
    budget of N seconds ingests a handful of commits whatever the machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now

    def time(self) -> float:
        return time.time()


def _changed(**arguments: Any) -> dict[str, Any]:
    if not {"rev_range", "base_ref", "head_ref"} & set(arguments):
        arguments.setdefault("all_history", True)  # every recorded change, not my work
    env = call_tool("changed", arguments)
    assert_valid_envelope(env)
    return env


def test_a_budgeted_catch_up_on_a_long_backlog_answers_the_newest_history_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, shas = _history(tmp_path)
    monkeypatch.setattr(ingest, "NEWEST_FIRST_OVER", 10)  # 30 pending is "long" here
    monkeypatch.setattr(ingest, "time", _TickingTime())
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "6")
    env = _changed(repo=str(repo.path), limit=50)
    ingested = env["data"]["ingest"]["ingested_now"]
    assert 0 < ingested < 30 and env["data"]["ingest"]["commits_behind"] == 30 - ingested
    assert _stored(repo.path) == set(shas[-ingested:])  # the newest, not the oldest
    commits = [item["commit"] for item in env["data"]["items"]]
    assert commits[0] == shas[-1] and set(commits) <= set(shas[-ingested:])
    assert any("commits behind HEAD" in w for w in env["warnings"])
    assert env["data"]["ingest"]["range_complete"] is None  # no range: `complete` says it


def test_a_short_backlog_is_still_ingested_in_history_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, shas = _history(tmp_path, commits=12)
    monkeypatch.setattr(ingest, "time", _TickingTime())
    handle = open_repo(repo.path)
    with Store.open(repo.path) as store:
        report = Ingestor(store, handle).catch_up(handle.head.peel(pygit2.Commit), budget_s=4)
    assert 0 < report.commits_ingested < 12
    assert _stored(repo.path) == set(shas[:report.commits_ingested])


def test_a_wholly_ingested_range_reads_as_whole_while_the_store_is_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, shas = _history(tmp_path)
    handle = open_repo(repo.path)
    with Store.open(repo.path) as store:  # what a newest-first catch-up leaves
        Ingestor(store, handle).run(_commits(handle, shas[-5:][::-1]))
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "0")  # ingest nothing more
    whole = _changed(repo=str(repo.path), rev_range="HEAD~5..HEAD")
    ingest_data = whole["data"]["ingest"]
    assert ingest_data["range_complete"] is True
    assert ingest_data["commits_behind"] == 25 and ingest_data["complete"] is False
    assert not [w for w in whole["warnings"] if "behind" in w or "partial" in w]
    assert {i["commit"] for i in whole["data"]["items"]} == set(shas[-5:])

    partial = _changed(repo=str(repo.path), rev_range="HEAD~8..HEAD")
    assert partial["data"]["ingest"]["range_complete"] is False
    assert any("commits behind HEAD" in w for w in partial["warnings"])
    assert any("of the range are not ingested" in w for w in partial["warnings"])


def _wait_until_caught_up(root: Path, count: int) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if len(_stored(root)) == count and not ingestlock.held(store_path(root).parent):
            return
        time.sleep(0.2)
    raise AssertionError("the background backfill did not finish")


def test_the_first_short_answer_leaves_the_rest_to_a_background_backfill(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = _history(tmp_path)
    monkeypatch.setenv("WARPLINE_BACKGROUND_BACKFILL", "1")
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "0")
    monkeypatch.setenv("WARPLINE_INGEST_WORKERS", "0")
    first = _changed(repo=str(repo.path))
    assert first["data"]["ingest"]["backfill_running"] is True
    assert any("background backfill" in w for w in first["warnings"])
    _wait_until_caught_up(repo.path, 30)  # nobody but the background process ingests
    log = [json.loads(line) for line in
           (store_path(repo.path).parent / "ingest.log").read_text().splitlines()]
    assert [(r["hook"], r["ok"], r["ingested"]) for r in log] == [
        (ingestlock.READ_BACKFILL, True, 30)]
    later = _changed(repo=str(repo.path))
    assert later["data"]["ingest"]["complete"] is True
    assert later["data"]["ingest"]["backfill_running"] is False
    assert later["warnings"] == []


def test_while_a_background_ingest_holds_the_lock_a_read_does_not_walk_beside_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, shas = _history(tmp_path)
    handle = open_repo(repo.path)
    with Store.open(repo.path) as store:
        Ingestor(store, handle).run(_commits(handle, shas[:10]))
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "60")  # time enough to catch up
    with ingestlock.exclusive(repo.path, 0) as locked:
        assert locked
        env = _changed(repo=str(repo.path))
        assert env["data"]["ingest"]["ingested_now"] == 0
        assert env["data"]["ingest"]["commits_behind"] == 20
        assert env["data"]["ingest"]["backfill_running"] is True
        assert env["data"]["total"] > 0  # the stored history answers, flagged reachable
        # A second background backfill leaves at once: two never run together.
        done = subprocess.run(
            [sys.executable, "-m", "warpline.cli", "hook-ingest", "--hook",
             ingestlock.READ_BACKFILL, "--repo", str(repo.path)], timeout=120)
        assert done.returncode == 0
        assert len(_stored(repo.path)) == 10
    after = _changed(repo=str(repo.path))  # the lock is free: this call catches up
    assert after["data"]["ingest"]["complete"] is True
    assert after["data"]["ingest"]["ingested_now"] == 20


def test_the_status_probe_counts_what_a_newest_first_ingest_left_behind(
        tmp_path: Path) -> None:
    repo, shas = _history(tmp_path)
    handle = open_repo(repo.path)
    with Store.open(repo.path) as store:  # what a read's newest-first catch-up leaves
        ingestor = Ingestor(store, handle)
        ingestor.mark_unordered()
        ingestor.run(_commits(handle, shas[-5:][::-1]))
    env = call_tool("project_status", {"repo": str(repo.path)})
    assert_valid_envelope(env)
    assert env["data"]["store"]["commits_behind_head"] == 25  # HEAD stored, not its past


def test_warpline_backfill_waits_for_a_background_ingest_instead_of_running_beside_it(
        tmp_path: Path) -> None:
    repo, _ = _history(tmp_path, commits=8)
    Store.open(repo.path).close()
    with ingestlock.exclusive(repo.path, 0) as locked:
        assert locked
        waiting = subprocess.Popen(
            [sys.executable, "-m", "warpline.cli", "backfill", "--repo", str(repo.path),
             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert waiting.stderr is not None
        assert "background backfill is running" in waiting.stderr.readline()
        assert _stored(repo.path) == set()  # nothing walked while the lock is held
    out, _ = waiting.communicate(timeout=120)
    assert waiting.returncode == 0
    assert json.loads(out)["commits_ingested"] == 8


def test_over_mcp_the_server_leaves_the_backfill_running_and_later_calls_answer_whole(
        tmp_path: Path) -> None:
    from warpline.mcp.client import McpProcess, initialize, server_command

    repo, shas = _history(tmp_path)
    env = {**os.environ, "WARPLINE_BACKGROUND_BACKFILL": "1",
           "WARPLINE_INTERACTIVE_BUDGET_S": "0", "WARPLINE_INGEST_WORKERS": "0"}
    with McpProcess(server_command(), cwd=tmp_path, env=env, timeout=120) as server:
        initialize(server)
        first = server.request("tools/call", {"name": "changed",
                                              "arguments": {"repo": str(repo.path)}})
        answer = json.loads(first["result"]["content"][0]["text"])
        assert answer["data"]["ingest"]["backfill_running"]
        _wait_until_caught_up(repo.path, 30)
        later = server.request("tools/call", {"name": "changed", "arguments": {
            "repo": str(repo.path), "limit": 3, "all_history": True}})["result"]
        later = json.loads(later["content"][0]["text"])
    assert later["data"]["ingest"]["complete"] is True and later["warnings"] == []
    assert later["data"]["items"][0]["commit"] == shas[-1]


def _state(pid: int) -> str | None:
    """The process's state letter in ``/proc`` (``Z`` for a zombie); None once reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def test_a_finished_background_backfill_is_reaped_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38 item 7: the server reaped its finished background backfill only at its next
    call that started one, so a quiet server kept a zombie."""
    from warpline.service.shared import background

    repo, _ = _history(tmp_path, commits=3)
    Store.open(repo.path).close()
    monkeypatch.setenv("WARPLINE_BACKGROUND_BACKFILL", "1")
    assert background.continue_backfill(repo.path, store_path(repo.path).parent)
    pid = background._started[-1].pid
    deadline = time.monotonic() + 120
    while _state(pid) not in (None, "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # a reaper has had its moment
    assert _state(pid) is None  # gone, not a zombie


def test_a_stopped_holder_of_the_ingest_lock_does_not_hold_the_store_back(
        tmp_path: Path) -> None:
    """Issue 38 item 7: a background ingest stopped (SIGSTOP, Ctrl-Z) kept its lock, so
    every read answered behind and `warpline backfill` waited for it. A real process holds
    the real lock and is really stopped."""
    repo, _ = _history(tmp_path, commits=8)
    Store.open(repo.path).close()
    code = ("import sys, time; from pathlib import Path; from warpline.ingest import "
            "lock as ingestlock\nwith ingestlock.exclusive(Path(sys.argv[1]), 0) as locked:\n"
            "    print(locked, flush=True); time.sleep(600)\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(repo.path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "True"
        state_dir = store_path(repo.path).parent
        assert ingestlock.held(state_dir)  # running: it holds the store
        os.kill(holder.pid, signal.SIGSTOP)
        deadline = time.monotonic() + 30
        while _state(holder.pid) not in ("T", "t") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not ingestlock.held(state_dir)
        env = _changed(repo=str(repo.path))
        assert env["data"]["ingest"]["backfill_running"] is False
        done = subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                               str(repo.path), "--json"], capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr
        assert len(_stored(repo.path)) == 8
    finally:
        os.kill(holder.pid, signal.SIGCONT)
        holder.kill()
        holder.wait()
