"""``capture_snapshot``: sources, completeness, idempotency, dry runs, and never shadowing
a better graph (built-in source; loomweave is covered in test_graph_tools_loomweave.py)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from tests.graphfixture import (
    CHANGE_PONG,
    EXPECTED_EDGES,
    PING,
    PONG,
    call,
    edit,
    error,
    make_repo,
)
from warpline.store.db import store_path


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return make_repo(tmp_path / "repo")


@pytest.fixture(autouse=True)
def _no_auto_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    # Graph queries in this module must use only the snapshots the tests captured.
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    monkeypatch.delenv("WARPLINE_EDGE_SOURCES", raising=False)


def _rows(repo: FixtureRepo, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(store_path(repo.path))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _capture(repo: FixtureRepo, **arguments: object) -> dict[str, Any]:
    data: dict[str, Any] = call("capture_snapshot", repo=str(repo.path), **arguments)["data"]
    return data


def _impact_snapshot(repo: FixtureRepo) -> dict[str, object]:
    env = call("blast_radius", repo=str(repo.path), changed_refs=[PONG])
    staleness: dict[str, object] = env["data"]["staleness"]
    return {**staleness, "completeness": env["data"]["completeness"]}


def test_capture_stores_a_full_builtin_snapshot_of_the_known_call_graph(
        repo: FixtureRepo) -> None:
    env = call("capture_snapshot", repo=str(repo.path))
    data = env["data"]
    assert (data["source"], data["completeness"], data["mode"], data["idempotency"]) == (
        "builtin", "FULL", "full", "created")
    assert data["source_version"].startswith("builtin-")
    assert data["commit_sha"] == repo.head
    assert data["edges"] == len(EXPECTED_EDGES)
    assert data["failed_entities"] == []
    assert env["enrichment"]["sei"] == "unavailable"
    assert env["enrichment"]["edges"] == "present"
    stored = _rows(repo, "SELECT source, target, kind FROM snapshot_edges")
    assert set(stored) == EXPECTED_EDGES


def test_capturing_the_same_commit_again_is_already_current(repo: FixtureRepo) -> None:
    first = _capture(repo)
    second = _capture(repo)
    assert second["idempotency"] == "already_current"
    assert second["snapshot_id"] == first["snapshot_id"]
    assert _rows(repo, "SELECT count(*) FROM snapshots") == [(1,)]
    edit(repo, *CHANGE_PONG)
    third = _capture(repo)
    assert third["idempotency"] == "created"
    assert third["commit_sha"] == repo.head


def test_a_dry_run_reports_the_capture_and_creates_nothing(repo: FixtureRepo) -> None:
    env = call("capture_snapshot", repo=str(repo.path), dry_run=True)
    data = env["data"]
    assert (data["idempotency"], data["snapshot_id"], data["captured_at"]) == (
        "dry_run", None, None)
    assert data["edges"] == len(EXPECTED_EDGES) and data["entities"] > 0
    assert not (repo.path / ".weft").exists()


def test_a_dry_run_against_an_existing_store_writes_nothing(repo: FixtureRepo) -> None:
    _capture(repo)
    edit(repo, *CHANGE_PONG)
    before = _rows(repo, "SELECT * FROM snapshots") + _rows(repo, "SELECT * FROM store_meta")
    commits = _rows(repo, "SELECT count(*) FROM commits")
    assert _capture(repo, dry_run=True)["idempotency"] == "dry_run"
    after = _rows(repo, "SELECT * FROM snapshots") + _rows(repo, "SELECT * FROM store_meta")
    assert after == before
    assert _rows(repo, "SELECT count(*) FROM commits") == commits


def test_a_repeated_idempotency_key_replays_the_stored_answer(repo: FixtureRepo) -> None:
    first = call("capture_snapshot", repo=str(repo.path), idempotency_key="nightly-1")
    edit(repo, *CHANGE_PONG)  # HEAD moves: a fresh capture would stamp another commit
    again = call("capture_snapshot", repo=str(repo.path), idempotency_key="nightly-1")
    assert again["data"] == first["data"]
    assert again["warnings"] and not first["warnings"]
    assert _rows(repo, "SELECT count(*) FROM snapshots") == [(1,)]


def test_an_already_current_answer_replays_under_its_own_key(repo: FixtureRepo) -> None:
    _capture(repo)
    keyed = _capture(repo, idempotency_key="second")
    assert keyed["idempotency"] == "already_current"
    edit(repo, *CHANGE_PONG)
    assert _capture(repo, idempotency_key="second") == keyed


def test_the_same_key_with_different_arguments_is_a_conflict(repo: FixtureRepo) -> None:
    _capture(repo, idempotency_key="k")
    payload = error("capture_snapshot", repo=str(repo.path), idempotency_key="k",
                    max_entities=3)
    assert (payload["error_code"], payload["rejected_field"]) == ("idempotency_conflict",
                                                                  "idempotency_key")
    assert payload["retryability"] == "retry_with_changes"
    assert error("capture_snapshot", repo=str(repo.path), idempotency_key="k",
                 dry_run=True)["error_code"] == "idempotency_conflict"


def test_if_stale_after_compares_instants_not_strings(repo: FixtureRepo) -> None:
    first = _capture(repo)
    at = datetime.strptime(str(first["captured_at"]), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    # The capture instant itself, written in another offset: not stale.
    same = at.isoformat()
    east = (at + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S+02:00")
    assert _capture(repo, if_stale_after=east)["idempotency"] == "already_current"
    assert _capture(repo, if_stale_after=same)["idempotency"] == "already_current"
    later = (at + timedelta(seconds=1, hours=-5)).strftime("%Y-%m-%dT%H:%M:%S-05:00")
    refreshed = _capture(repo, if_stale_after=later)
    assert refreshed["idempotency"] == "created"
    assert refreshed["snapshot_id"] != first["snapshot_id"]


def test_max_entities_bounds_the_capture_and_lists_the_rest(repo: FixtureRepo) -> None:
    full = _capture(repo, dry_run=True)
    data = _capture(repo, max_entities=4)
    assert (data["completeness"], data["entities"]) == ("DELTA", 4)
    reasons = {f["reason"] for f in data["failed_entities"]}
    assert reasons == {"over_max_entities"}
    assert len(data["failed_entities"]) == int(str(full["entities"])) - 4
    kept = {r[0] for r in _rows(repo, "SELECT locator FROM snapshot_entities")}
    for source, target in _rows(repo, "SELECT source, target FROM snapshot_edges"):
        assert source in kept and target in kept


def test_changed_only_keeps_the_named_entities_their_edges_and_is_always_delta(
        repo: FixtureRepo) -> None:
    env = call("capture_snapshot", repo=str(repo.path), mode="changed_only",
               changed_refs=["shapes.cycle.pong"])
    data = env["data"]
    assert (data["completeness"], data["mode"]) == ("DELTA", "changed_only")
    assert env["enrichment"]["edges"] == "partial"
    assert set(_rows(repo, "SELECT source, target, kind FROM snapshot_edges")) == {
        (PING, PONG, "calls"), (PONG, PING, "calls")}
    assert {r[0] for r in _rows(repo, "SELECT locator FROM snapshot_entities")} == {PING, PONG}


def test_a_changed_only_capture_that_names_nothing_is_never_the_graph(
        repo: FixtureRepo) -> None:
    env = call("capture_snapshot", repo=str(repo.path), mode="changed_only",
               changed_refs=["no.such.thing"])
    assert (env["data"]["completeness"], env["data"]["entities"]) == ("DELTA", 0)
    assert len(env["warnings"]) == 2  # names nothing; a changed_only capture is partial
    assert _impact_snapshot(repo)["completeness"] == "NO_SNAPSHOT"


def test_a_file_that_does_not_parse_makes_the_capture_delta(repo: FixtureRepo) -> None:
    repo.commit({"shapes/broken.py": "def broken(:\n    pass\n"}, "broken")
    data = _capture(repo)
    assert data["completeness"] == "DELTA"
    assert {"locator": "python:module:shapes.broken", "reason": "syntax_error"} in data[
        "failed_entities"]


def test_skipped_when_no_enabled_source_can_answer(repo: FixtureRepo,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_EDGE_SOURCES", "loomweave")  # and there is no index
    env = call("capture_snapshot", repo=str(repo.path))
    data = env["data"]
    assert (data["completeness"], data["source"], data["source_version"]) == (
        "SKIPPED", "none", "no_index")
    assert (data["snapshot_id"], data["entities"], data["edges"]) == (None, 0, 0)
    assert env["enrichment"]["edges"] == "skipped"
    assert env["next_actions"]["commands"]
    assert env["warnings"]


def test_a_later_skipped_attempt_does_not_shadow_a_better_snapshot(
        repo: FixtureRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _capture(repo)
    edit(repo, *CHANGE_PONG)
    monkeypatch.setenv("WARPLINE_EDGE_SOURCES", "loomweave")
    assert _capture(repo)["completeness"] == "SKIPPED"
    used = _impact_snapshot(repo)
    assert (used["snapshot_id"], used["completeness"], used["commits_behind"]) == (
        first["snapshot_id"], "FULL", 1)


def test_a_later_partial_snapshot_does_not_shadow_a_full_one(repo: FixtureRepo) -> None:
    first = _capture(repo)
    edit(repo, *CHANGE_PONG)
    assert _capture(repo, mode="changed_only", changed_refs=[PONG])["completeness"] == "DELTA"
    assert _capture(repo, max_entities=3)["completeness"] == "DELTA"
    used = _impact_snapshot(repo)
    assert (used["snapshot_id"], used["completeness"]) == (first["snapshot_id"], "FULL")


def test_a_partial_snapshot_answers_when_it_is_the_best_there_is(repo: FixtureRepo) -> None:
    delta = _capture(repo, max_entities=3)
    env = call("blast_radius", repo=str(repo.path), changed_refs=[PONG])
    assert env["data"]["completeness"] == "DELTA"
    assert env["data"]["staleness"]["snapshot_id"] == delta["snapshot_id"]
    assert env["enrichment"]["edges"] == "partial"
    assert env["warnings"]


def test_old_snapshots_are_pruned_but_keep_replaying(repo: FixtureRepo) -> None:
    first = _capture(repo, idempotency_key="first")
    for n in range(11):
        repo.commit({"shapes/extra.py": f"def extra():\n    return {n}\n"}, f"extra {n}")
        _capture(repo)
    usable = _rows(repo, "SELECT id FROM snapshots WHERE completeness IN ('FULL', 'DELTA')")
    assert len(usable) == 10
    assert (first["snapshot_id"],) not in usable
    assert _rows(repo, "SELECT count(*) FROM snapshot_edges WHERE snapshot_id = "
                       f"{first['snapshot_id']}") == [(0,)]
    assert _capture(repo, idempotency_key="first") == first
    assert _impact_snapshot(repo)["commits_behind"] == 0


@pytest.mark.parametrize(("arguments", "code", "field"), [
    ({"commit": "no-such-rev"}, "invalid_rev_range", "commit"),
    ({"changed_refs": ["shapes.cycle.pong"]}, "invalid_changed_refs", "changed_refs"),
    ({"mode": "changed_only"}, "invalid_changed_refs", "changed_refs"),
    ({"mode": "changed_only", "changed_refs": [{"kind": "bogus", "value": "x"}]},
     "invalid_changed_refs", "changed_refs.0.kind"),
    ({"mode": "changed_only", "changed_refs": [{"kind": "warpline_entity_key_id",
                                                "value": "abc"}]},
     "invalid_changed_refs", "changed_refs[0].value"),
    ({"if_stale_after": "yesterday"}, "invalid_argument", "if_stale_after"),
    ({"max_entities": 0}, "invalid_argument", "max_entities"),
    ({"mode": "everything"}, "invalid_argument", "mode"),
])
def test_capture_rejects_bad_arguments_with_the_right_code(
        repo: FixtureRepo, arguments: dict[str, object], code: str, field: str) -> None:
    payload = error("capture_snapshot", repo=str(repo.path), **arguments)
    assert payload["error_code"] == code
    assert payload["rejected_field"] == field


@pytest.mark.parametrize(("tool", "arguments"), [
    ("capture_snapshot", {}),
    ("capture_snapshot", {"dry_run": True}),
    ("blast_radius", {"changed_refs": [PONG]}),
    ("reverify", {"rev_range": "HEAD~1..HEAD"}),
])
def test_a_path_that_is_not_a_repository_is_invalid_and_gets_no_state(
        tmp_path: Path, tool: str, arguments: dict[str, object]) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    payload = error(tool, repo=str(plain), **arguments)
    assert (payload["error_code"], payload["rejected_field"]) == ("invalid_repo", "repo")
    assert list(plain.iterdir()) == []
