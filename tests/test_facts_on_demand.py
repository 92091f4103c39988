"""Events first, facts when asked: a backfill stores no facts of what a change means; an
answer reads those of the events it shows, keeps them, and the facts never depend on how
the store was filled (worker count, the order they are read in) (issue 36 item 1, issue 38
item 6)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.git.repo import head_commit, open_repo
from warpline.ingest import pipeline
from warpline.ingest.driver import Ingestor
from warpline.ingest.facts import fill
from warpline.registry import call_tool
from warpline.store.db import Store, store_path

FUNCS = 6


def _module(version: int, renamed: bool = False) -> str:
    """Six functions; each version edits some: a comment (cosmetic), a body
    (behavioural), a parameter (signature), a docstring; a rename now and then."""
    out = ['"""A module."""\n']
    for k in range(FUNCS):
        name = f"f{k}" if not (renamed and k == 0) else "renamed_f0"
        param = ", extra=None" if k == 2 and version % 3 == 0 else ""
        out.append(f"\n\ndef {name}(value{param}):\n")
        out.append(f'    """Doc of {k}, {version // 4 if k == 3 else 0}."""\n')
        out.append(f"    # note {version % 2 if k == 1 else 0}\n")
        out.append(f"    total = value * {k + 1}\n")
        out.append(f"    return total + {version if k in (4, 5) and version % 2 else 0}\n")
    return "".join(out)


def _history(path: Path, commits: int = 24) -> FixtureRepo:
    repo = FixtureRepo(path)
    moved_at = commits - 3  # pkg/b.py becomes pkg/c.py, edited in the same commit
    for n in range(commits):
        other = "pkg/b.py" if n < moved_at else "pkg/c.py"
        repo.commit({"pkg/a.py": _module(n, renamed=n >= commits // 2),
                     other: _module(n + 1)}, message=f"edit {n}",
                    renames={"pkg/b.py": "pkg/c.py"} if n == moved_at else None)
    return repo


def _backfill(root: Path, workers: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_INGEST_WORKERS", workers)
    monkeypatch.setattr(pipeline, "MIN_COMMITS", 2)
    monkeypatch.setattr(pipeline, "MIN_SLICE", 5)
    handle = open_repo(root)
    with Store.open(root) as store:
        assert Ingestor(store, handle).catch_up(head_commit(handle)).complete


def _facts(root: Path) -> tuple[dict[tuple[str, str, str], tuple[Any, ...]], int]:
    """Every event's facts by (commit, locator, change kind), and how many are pending."""
    conn = sqlite3.connect(store_path(root))
    try:
        rows = conn.execute(
            "SELECT c.sha, e.locator, ce.change_kind, ce.code_same, ce.docs_changed, "
            "ce.signature_changed FROM change_events ce JOIN commits c ON c.id = ce.commit_id "
            "JOIN entities e ON e.id = ce.entity_id").fetchall()
        pending = conn.execute(
            "SELECT count(*) FROM change_events WHERE facts_pending = 1").fetchone()[0]
    finally:
        conn.close()
    return {(r[0], r[1], r[2]): tuple(r[3:]) for r in rows}, int(pending)


def _fill_all(root: Path) -> None:
    handle = open_repo(root)
    with Store.open(root) as store:
        report = fill(store, handle)
    assert report.left == 0 and report.read > 0


@pytest.fixture
def history(tmp_path: Path) -> FixtureRepo:
    return _history(tmp_path / "repo")


def test_a_backfill_stores_events_and_leaves_their_facts_pending(
        history: FixtureRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    _backfill(history.path, "0", monkeypatch)
    facts, pending = _facts(history.path)
    assert pending > 0
    assert all(value == (None, None, None) for value in facts.values())


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_facts_are_the_same_whatever_the_worker_count(
        history: FixtureRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        workers: str) -> None:
    other = Path(shutil.copytree(history.path, tmp_path / f"workers{workers}"))
    _backfill(history.path, "0", monkeypatch)
    _backfill(other, workers, monkeypatch)
    _fill_all(history.path)
    _fill_all(other)
    in_process, none_left = _facts(history.path)
    assert none_left == 0
    assert {v for v in in_process.values()} >= {(1, 0, 0), (0, 0, 0), (0, 0, 1)}
    assert _facts(other) == (in_process, 0)


def test_the_facts_do_not_depend_on_which_answer_read_them_first(
        history: FixtureRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = Path(shutil.copytree(history.path, tmp_path / "other"))
    for root in (history.path, other):
        _backfill(root, "0", monkeypatch)
    _fill_all(history.path)
    # The other store: a timeline, then a short range, then the rest (each answer reads
    # only what it shows; the parse cache starts cold every time).
    env = call_tool("timeline", {"repo": str(other), "entity_ref": "pkg.a.f4"})
    assert_valid_envelope(env)
    assert {i["nature"] for i in env["data"]["items"]} >= {"behavioural"}
    call_tool("changed", {"repo": str(other), "rev_range": "HEAD~3..HEAD"})
    _fill_all(other)
    assert _facts(other) == _facts(history.path)


def test_changed_skip_cosmetic_reads_the_facts_of_its_range_and_keeps_them(
        history: FixtureRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    _backfill(history.path, "0", monkeypatch)
    arguments = {"repo": str(history.path), "rev_range": "HEAD~4..HEAD",
                 "skip_cosmetic": True}
    first = call_tool("changed", arguments)
    assert_valid_envelope(first)
    shown = {(i["commit"], i["entity"]["locator"]) for i in first["data"]["items"]}
    cosmetic = {(i["commit"], i["entity"]["locator"])
                for i in call_tool("changed", {**arguments, "skip_cosmetic": False,
                                               "limit": 500})["data"]["items"]
                if i["nature"] == "cosmetic"}
    assert cosmetic and not cosmetic & shown
    assert not any("not read yet" in w for w in first["warnings"])
    kept, _ = _facts(history.path)
    head = str(history.repo.head.target)
    assert any(sha == head and value != (None, None, None)
               for (sha, _, _), value in kept.items())
    assert call_tool("changed", arguments)["data"] == first["data"]


def test_an_answer_out_of_budget_says_the_nature_is_not_read_yet(
        history: FixtureRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    _backfill(history.path, "0", monkeypatch)
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "0")
    env = call_tool("changed", {"repo": str(history.path), "rev_range": "HEAD~4..HEAD",
                                "skip_cosmetic": True})
    assert_valid_envelope(env)
    functions = [i for i in env["data"]["items"] if i["entity"]["kind"] == "function"]
    assert functions and all(i["nature"] is None for i in functions)  # unknown, kept
    assert any("not read yet" in w for w in env["warnings"])


def test_facts_projected_past_the_budget_are_left_at_once(
        history: FixtureRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read whose rate so far projects the scope past the budget stops there (the answer
    comes at once, saying what is unknown); one that fits reads everything. A slow reader
    is simulated by a clock that advances one second per look: wall time cannot be
    asserted."""
    from warpline.ingest import facts

    _backfill(history.path, "0", monkeypatch)
    pending = _facts(history.path)[1]
    ticks = iter(range(10_000))
    monkeypatch.setattr(facts, "_clock", lambda: float(next(ticks)))
    handle = open_repo(history.path)
    with Store.open(history.path) as store:
        report = fill(store, handle, budget_s=30.0)  # probe at 1.5 s: two commits read
    assert report.projected_s is not None and report.projected_s > 30.0
    assert 0 < report.read < pending and report.left == pending - report.read
    with Store.open(history.path) as store:
        report = fill(store, handle, budget_s=10_000.0)
    assert report.projected_s is None and report.left == 0
    assert _facts(history.path)[1] == 0


def test_versions_derived_from_each_other_give_the_facts_of_whole_reads(
        history: FixtureRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpline.git import eventfacts

    whole = Path(shutil.copytree(history.path, tmp_path / "whole"))
    for root in (history.path, whole):
        _backfill(root, "0", monkeypatch)
    _fill_all(history.path)  # derived: each version's edited regions read again
    monkeypatch.setattr(eventfacts, "DERIVE", False)
    _fill_all(whole)
    assert _facts(history.path) == _facts(whole)


def test_the_background_pass_reads_every_pending_fact_after_the_events(
        history: FixtureRepo) -> None:
    from warpline.setup import hook_runner

    record = hook_runner.catch_up(history.path, facts=True)
    assert record["ok"] and record["ingested"] == 24 and record["facts_read"] > 0
    assert _facts(history.path)[1] == 0


def test_new_commits_interrupt_the_background_pass(
        history: FixtureRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpline.ingest import facts

    _backfill(history.path, "0", monkeypatch)
    monkeypatch.setattr(facts, "ASK_EVERY_S", 0.0)
    handle = open_repo(history.path)
    with Store.open(history.path) as store:
        report = fill(store, handle, interrupt=lambda: True)  # HEAD moved at once
    assert report.read == 0 and report.left == _facts(history.path)[1] > 0
