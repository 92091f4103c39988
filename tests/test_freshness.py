"""Verification freshness (``warpline.service.admin.freshness``) over real commit graphs.

History used by most tests (commit times increase left to right)::

    c0 - c1 - c2 - c3 - c4          main
           \\
            b1                       topic (off c1)
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from warpline.models.common import iso_z
from warpline.service.admin import freshness
from warpline.service.admin.freshness import summarise, verification_states
from warpline.service.shared.context import RepoContext, open_context

MISSING = "0123456789abcdef0123456789abcdef01234567"  # well-formed, not in the repository


@dataclass
class History:
    repo: FixtureRepo
    c: list[str]
    b1: str


@pytest.fixture
def history(tmp_path: Path) -> History:
    repo = FixtureRepo(tmp_path / "repo")
    c = [repo.commit({"app/core.py": f"def f():\n    return {n}\n"}, message=f"c{n}")
         for n in range(5)]
    b1 = repo.commit({"app/side.py": "X = 1\n"}, message="b1", parents=[c[1]],
                     update_head=False)
    return History(repo, c, b1)


@pytest.fixture
def ctx(history: History) -> Iterator[RepoContext]:
    with open_context(str(history.repo.path)) as context:
        yield context


def _record(ctx: RepoContext, sha: str, kind: str, at: int) -> None:
    with ctx.store.transaction() as conn:
        conn.execute("INSERT INTO verifications (commit_sha, kind, source, actor, verified_at) "
                     "VALUES (?, ?, 'warpline', NULL, ?)", (sha, kind, at))


def _one(ctx: RepoContext, item: str | None, seed: str | None = None,
         kinds: list[str] | None = None) -> dict[str, Any]:
    [state] = verification_states(ctx, [(item, seed)], kinds)
    return state


def test_without_records_everything_is_unverified(ctx: RepoContext, history: History) -> None:
    states = verification_states(ctx, [(history.c[1], None), (history.c[2], history.c[1])],
                                 None)
    assert states == [{"state": "unverified", "last_verified_commit": None,
                       "last_verified_at": None, "kinds": [], "commits_behind": None, "scope": None,
                       "selection_basis": None, "claimed_by": None, "signer": None}] * 2


def test_a_verification_at_a_descendant_of_the_change_is_fresh(
        ctx: RepoContext, history: History) -> None:
    _record(ctx, history.c[3], "test_pass", 1_750_000_000)
    for change in history.c[:4]:
        state = _one(ctx, change)
        assert state == {"state": "fresh", "last_verified_commit": history.c[3],
                         "last_verified_at": "2025-06-15T15:06:40Z", "kinds": ["test_pass"],
                         "commits_behind": 0, "scope": "unknown", "selection_basis": None,
                         "claimed_by": "local", "signer": None}


def test_a_verification_before_the_change_is_stale_with_the_lag(
        ctx: RepoContext, history: History) -> None:
    _record(ctx, history.c[1], "test_pass", 100)
    state = _one(ctx, history.c[4])
    assert (state["state"], state["last_verified_commit"]) == ("stale", history.c[1])
    assert state["commits_behind"] == 3  # c2, c3, c4 are not in the verified commit


def test_a_verification_on_another_branch_does_not_contain_the_change(
        ctx: RepoContext, history: History) -> None:
    _record(ctx, history.b1, "ci_pass", 100)
    assert _one(ctx, history.c[1])["state"] == "fresh"  # b1 is built on c1
    stale = _one(ctx, history.c[2])
    assert (stale["state"], stale["commits_behind"]) == ("stale", 1)  # c2 is missing from b1


def test_only_records_in_the_answered_history_are_evidence(
        ctx: RepoContext, history: History) -> None:
    """A pass on another branch (b1, off c1) is not evidence for main's history: with the
    answered head given, it neither makes c1 fresh nor is named as main's last record."""
    _record(ctx, history.b1, "ci_pass", 200)
    _record(ctx, history.c[1], "test_pass", 100)
    on_main = verification_states(ctx, [(history.c[2], None), (history.c[1], None)], None,
                                  history.c[4])
    assert [s["last_verified_commit"] for s in on_main] == [history.c[1]] * 2
    assert [s["state"] for s in on_main] == ["stale", "fresh"]
    on_branch = verification_states(ctx, [(history.c[1], None)], None, history.b1)
    assert on_branch[0]["last_verified_commit"] == history.b1
    # A head before every record: nothing counts.
    assert verification_states(ctx, [(history.c[0], None)], None,
                               history.c[0])[0]["state"] == "unverified"


def test_a_downstream_item_also_needs_the_seed_change(ctx: RepoContext, history: History) -> None:
    _record(ctx, history.c[2], "test_pass", 100)
    # The item itself last changed in c1 (covered), but the seed change c4 is not.
    state = _one(ctx, history.c[1], history.c[4])
    assert (state["state"], state["last_verified_commit"], state["commits_behind"]) == (
        "stale", history.c[2], 2)
    _record(ctx, history.c[4], "test_pass", 200)
    assert _one(ctx, history.c[1], history.c[4])["last_verified_commit"] == history.c[4]
    assert _one(ctx, history.c[1], history.c[4])["state"] == "fresh"


def test_fresh_beats_a_newer_stale_record_and_the_newest_fresh_wins(
        ctx: RepoContext, history: History) -> None:
    _record(ctx, history.c[3], "test_pass", 100)
    _record(ctx, history.c[4], "test_pass", 200)
    _record(ctx, history.c[1], "test_pass", 300)  # newest, but before the change
    state = _one(ctx, history.c[2])
    assert (state["state"], state["last_verified_commit"]) == ("fresh", history.c[4])
    assert _one(ctx, history.c[4])["state"] == "fresh"
    assert _one(ctx, history.c[2], history.c[4])["last_verified_commit"] == history.c[4]


def test_a_stale_item_reports_the_newest_record(ctx: RepoContext, history: History) -> None:
    _record(ctx, history.c[2], "test_pass", 300)
    _record(ctx, history.c[3], "test_pass", 100)
    state = _one(ctx, history.c[4])
    assert (state["state"], state["last_verified_commit"], state["commits_behind"]) == (
        "stale", history.c[2], 2)


def test_kinds_filter_which_records_count(ctx: RepoContext, history: History) -> None:
    _record(ctx, history.c[4], "ci_pass", 200)
    _record(ctx, history.c[4], "lint_pass", 250)
    _record(ctx, history.c[1], "test_pass", 100)
    everything = _one(ctx, history.c[3])
    assert (everything["state"], everything["kinds"]) == ("fresh", ["ci_pass", "lint_pass"])
    assert everything["last_verified_at"] == "1970-01-01T00:04:10Z"  # the latest of the two
    only_tests = _one(ctx, history.c[3], kinds=["test_pass"])
    assert (only_tests["state"], only_tests["kinds"]) == ("stale", ["test_pass"])
    ci = _one(ctx, history.c[3], kinds=["ci_pass", "nope"])
    assert (ci["state"], ci["kinds"], ci["last_verified_at"]) == (
        "fresh", ["ci_pass"], "1970-01-01T00:03:20Z")
    assert _one(ctx, history.c[3], kinds=["nope"])["state"] == "unverified"


def test_an_uncommitted_item_is_unverified_by_definition(
        ctx: RepoContext, history: History) -> None:
    _record(ctx, history.c[4], "test_pass", 100)
    assert _one(ctx, None)["state"] == "unverified"
    assert _one(ctx, None, history.c[1])["state"] == "unverified"


def test_a_record_or_change_missing_from_the_repository_is_never_fresh(
        ctx: RepoContext, history: History) -> None:
    _record(ctx, MISSING, "test_pass", 100)
    state = _one(ctx, history.c[1])
    assert (state["state"], state["last_verified_commit"], state["commits_behind"]) == (
        "stale", MISSING, None)
    assert _one(ctx, "not-a-sha")["state"] == "stale"
    _record(ctx, history.c[4], "test_pass", 50)
    assert _one(ctx, history.c[1])["state"] == "fresh"


def test_the_verified_commit_itself_counts_as_containing_its_change(
        ctx: RepoContext, history: History) -> None:
    _record(ctx, history.b1, "test_pass", 100)
    assert _one(ctx, history.b1)["state"] == "fresh"


def test_summarise_counts_every_state() -> None:
    states = [{"state": s} for s in ("fresh", "stale", "fresh", "unverified")]
    assert summarise(states) == {"fresh": 2, "stale": 1, "unverified": 1}
    assert summarise([]) == {"fresh": 0, "stale": 0, "unverified": 0}


# -- at worklist size ---------------------------------------------------------------------

def test_a_thousand_items_against_fifty_records_match_a_linear_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    commits = [repo.commit({"m.py": f"V = {n}\n"}, message=f"c{n}") for n in range(200)]
    index = {sha: n for n, sha in enumerate(commits)}
    rng = random.Random(5)
    verified = sorted(rng.sample(range(200), 50))
    kinds = {n: rng.choice(["test_pass", "ci_pass"]) for n in verified}
    times = dict(zip(verified, rng.sample(range(1_000, 100_000), 50), strict=True))
    queries: list[tuple[str | None, str | None]] = []
    for _ in range(1000):
        item = rng.randrange(200)
        seed = rng.choice([None, rng.randrange(200)])
        queries.append((commits[item], None if seed is None else commits[seed]))
    queries[7] = (None, None)
    with open_context(str(repo.path)) as ctx:
        for n in verified:
            _record(ctx, commits[n], kinds[n], times[n])
        walks = _count_walks(monkeypatch)
        for allowed in (None, ["test_pass"]):
            walks.clear()
            states = verification_states(ctx, queries, allowed)
            assert len(states) == len(queries)
            # Every (record, change) pair is answered from one walk, plus one for the lags.
            assert len(walks) == 2
            usable = [n for n in verified if allowed is None or kinds[n] in allowed]
            for (change, since), state in zip(queries, states, strict=True):
                assert state == _linear_model(change, since, usable, times, kinds, commits,
                                              index)
            assert sum(summarise(states).values()) == 1000


def _count_walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    walks: list[int] = []
    original = freshness._walk

    def counting(*args: Any, **kwargs: Any) -> Any:
        walks.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(freshness, "_walk", counting)
    return walks


def test_skewed_commit_dates_still_give_exact_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    # c1's clock ran behind: it is dated before its own parent c0.
    c0 = repo.commit({"m.py": "V = 0\n"}, when=2_000_000)
    c1 = repo.commit({"m.py": "V = 1\n"}, when=1_000_000)
    c2 = repo.commit({"m.py": "V = 2\n"}, when=3_000_000)
    with open_context(str(repo.path)) as ctx:
        _record(ctx, c2, "test_pass", 100)
        walks = _count_walks(monkeypatch)
        states = verification_states(ctx, [(c0, None), (c1, None), (c0, c1)], None)
        assert [s["state"] for s in states] == ["fresh"] * 3
        assert len(walks) == 2  # the bounded walk hid c0, so it was redone unbounded


def _linear_model(item: str | None, seed: str | None, usable: list[int], times: dict[int, int],
                  kinds: dict[int, str], commits: list[str],
                  index: dict[str, int]) -> dict[str, Any]:
    """The expected answer on a linear history: V contains C iff C is not after V."""
    if item is None or not usable:
        return {"state": "unverified", "last_verified_commit": None, "last_verified_at": None,
                "kinds": [], "commits_behind": None, "scope": None, "selection_basis": None,
                "claimed_by": None, "signer": None}
    needed = max(index[item], index[seed] if seed else 0)
    newest_first = sorted(usable, key=lambda n: times[n], reverse=True)
    fresh = [n for n in newest_first if n >= needed]
    chosen = fresh[0] if fresh else newest_first[0]
    return {"state": "fresh" if fresh else "stale", "last_verified_commit": commits[chosen],
            "last_verified_at": iso_z(times[chosen]), "kinds": [kinds[chosen]],
            "commits_behind": 0 if fresh else needed - chosen, "scope": "unknown",
            "selection_basis": None, "claimed_by": "local", "signer": None}
