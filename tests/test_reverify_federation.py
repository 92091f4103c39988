"""End to end: ``reverify`` with verification freshness (records made with the CLI) and
with ``include_federation: true`` against a real filigree dashboard.

The fixture repository (two modules, a call chain)::

    app/api.py   endpoint() -> app/core.py caller() -> helper()

SEIs: the built-in edge source resolves none (only loomweave mints SEIs), so the tests
write SEIs onto the store's entities directly, as a loomweave capture would.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.filigree_server import FiligreeServer, filigree_dashboard, free_loopback_port
from tests.gitfixture import FixtureRepo
from warpline.federation.filigree import ENV_VAR
from warpline.registry import call_tool
from warpline.service.admin import work
from warpline.store.db import store_path

CORE = "def helper():\n    return 1\n\n\ndef caller():\n    return helper()\n"
API = "from app.core import caller\n\n\ndef endpoint():\n    return caller()\n"
HELPER = "python:function:app.core.helper"
CALLER = "python:function:app.core.caller"
ENDPOINT = "python:function:app.api.endpoint"


def sei(locator: str) -> str:
    return "loomweave:eid:" + hashlib.sha256(locator.encode()).hexdigest()[:32]


def _repo(path: Path) -> FixtureRepo:
    repo = FixtureRepo(path)
    repo.commit({"app/__init__.py": "", "app/core.py": CORE, "app/api.py": API}, "one")
    repo.commit({"app/core.py": CORE.replace("return 1", "return 2")}, "two")
    return repo


def _reverify(repo: FixtureRepo, **arguments: Any) -> dict[str, Any]:
    envelope = call_tool("reverify", {"repo": str(repo.path), **arguments})
    assert_valid_envelope(envelope)
    return envelope


def _items(envelope: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["entity"]["locator"]: item for item in envelope["data"]["items"]}


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warpline.cli", *args], capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1", **(env or {})})


def _verify_record(repo: FixtureRepo, commit: str, kind: str) -> None:
    result = _cli("verify-record", "--commit", commit, "--kind", kind, "--actor", "ci",
                  "--repo", str(repo.path), "--json")
    assert result.returncode == 0, result.stderr


def _set_seis(repo: FixtureRepo, seis: dict[str, str]) -> None:
    with sqlite3.connect(store_path(repo.path)) as conn:
        for locator, value in seis.items():
            assert conn.execute("UPDATE entities SET sei = ? WHERE locator = ?",
                                (value, locator)).rowcount == 1, locator


# -- verification freshness -----------------------------------------------------------------

def _states(envelope: dict[str, Any]) -> dict[str, tuple[str, int | None]]:
    return {loc: (item["verification"]["state"], item["verification"]["commits_behind"])
            for loc, item in _items(envelope).items()}


def test_freshness_follows_records_and_new_changes(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    before = _reverify(repo, rev_range="HEAD~1..HEAD")
    assert set(_items(before)) == {HELPER, CALLER, ENDPOINT}
    assert before["data"]["verification_summary"] == {"fresh": 0, "stale": 0, "unverified": 3}

    _verify_record(repo, "HEAD", "test_pass")
    verified = _reverify(repo, rev_range="HEAD~1..HEAD")
    assert _states(verified) == {HELPER: ("fresh", 0), CALLER: ("fresh", 0),
                                 ENDPOINT: ("fresh", 0)}
    helper = _items(verified)[HELPER]["verification"]
    assert (helper["last_verified_commit"], helper["kinds"]) == (repo.head, ["test_pass"])
    assert verified["data"]["verification_summary"] == {"fresh": 3, "stale": 0,
                                                        "unverified": 0}

    # Change the code again: the record no longer covers the change, nor its dependents.
    verified_at = repo.head
    repo.commit({"app/core.py": CORE.replace("return 1", "return 3")}, "three")
    changed = _reverify(repo, rev_range="HEAD~1..HEAD")
    assert _states(changed) == {HELPER: ("stale", 1), CALLER: ("stale", 1),
                                ENDPOINT: ("stale", 1)}
    assert _items(changed)[CALLER]["verification"]["last_verified_commit"] == verified_at
    assert changed["data"]["verification_summary"] == {"fresh": 0, "stale": 3,
                                                       "unverified": 0}


def test_verified_kinds_say_which_records_count(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    _verify_record(repo, "HEAD~1", "test_pass")  # before the change under review
    _verify_record(repo, "HEAD", "lint_pass")
    assert set(_states(_reverify(repo, rev_range="HEAD")).values()) == {("fresh", 0)}
    only_tests = _reverify(repo, rev_range="HEAD", verified_kinds=["test_pass"])
    assert only_tests["data"]["verification_summary"] == {"fresh": 0, "stale": 3,
                                                          "unverified": 0}
    assert _items(only_tests)[HELPER]["verification"]["kinds"] == ["test_pass"]
    nothing = _reverify(repo, rev_range="HEAD", verified_kinds=["ci_pass"])
    assert nothing["data"]["verification_summary"]["unverified"] == 3
    stale_only = _reverify(repo, rev_range="HEAD", verified_kinds=["test_pass"],
                           filters={"verification_states": ["stale"]})
    assert set(_items(stale_only)) == {HELPER, CALLER, ENDPOINT}
    fresh_only = _reverify(repo, rev_range="HEAD", verified_kinds=["test_pass"],
                           filters={"verification_states": ["fresh"]})
    assert fresh_only["data"]["items"] == []


def test_uncommitted_changes_are_unverified(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    _verify_record(repo, "HEAD", "test_pass")
    repo.write_worktree("app/core.py", CORE.replace("return 1", "return 9"))
    envelope = _reverify(repo, include_worktree=True)
    states = _states(envelope)
    assert states[HELPER] == ("unverified", None)
    assert states[CALLER] == ("unverified", None)


def test_cli_reverify_shows_the_verification_of_each_item(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    _verify_record(repo, "HEAD", "test_pass")
    result = _cli("reverify", "HEAD~1..HEAD", "--verified-kind", "test_pass",
                  "--repo", str(repo.path), "--json")
    assert result.returncode == 0, result.stderr
    envelope = json.loads(result.stdout)
    assert_valid_envelope(envelope)
    assert envelope["data"]["verification_summary"]["fresh"] == 3


# -- work enrichment from a real filigree -----------------------------------------------------

@dataclass(frozen=True)
class Tracker:
    server: FiligreeServer
    urgent: str  # P1, open; linked to helper
    closed: str  # P0, closed; linked to caller
    docs: str  # P3, open; linked to caller


@pytest.fixture(scope="module")
def tracker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tracker]:
    with filigree_dashboard(tmp_path_factory.mktemp("filigree") / "repo") as server:
        urgent = server.create_issue("helper returns the wrong total", priority=1)
        closed = server.create_issue("caller crashed on empty cart", priority=0)
        server.close(closed, commit="main@0123456789abcdef0123456789abcdef01234567")
        docs = server.create_issue("document caller", priority=3)
        server.associate(urgent, sei(HELPER))
        server.associate(closed, sei(CALLER))
        server.associate(docs, sei(CALLER))
        yield Tracker(server, urgent, closed, docs)


@pytest.fixture
def linked_repo(tmp_path: Path) -> FixtureRepo:
    """The fixture repo, ingested and captured, with SEIs on helper and caller only."""
    repo = _repo(tmp_path / "repo")
    _reverify(repo, rev_range="HEAD~1..HEAD")
    _set_seis(repo, {HELPER: sei(HELPER), CALLER: sei(CALLER)})
    return repo


@pytest.fixture
def filigree_at(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv(work.DEADLINE_ENV, "1.0")
    yield lambda url: monkeypatch.setenv(ENV_VAR, url)


@pytest.mark.filigree
def test_reverify_with_federation_shows_linked_issues_on_items_with_seis(
        tracker: Tracker, linked_repo: FixtureRepo, filigree_at: Any) -> None:
    filigree_at(tracker.server.base_url)
    envelope = _reverify(linked_repo, rev_range="HEAD~1..HEAD", include_federation=True)

    assert envelope["enrichment"]["work"] == "present"
    items = _items(envelope)
    helper, caller, endpoint = items[HELPER], items[CALLER], items[ENDPOINT]
    assert [w["issue_id"] for w in helper["enrichment"]["work"]] == [tracker.urgent]
    assert helper["enrichment"]["work"][0]["sei"] == sei(HELPER)
    assert helper["priority"] == "P1"
    assert {w["issue_id"] for w in caller["enrichment"]["work"]} == {tracker.closed,
                                                                    tracker.docs}
    assert caller["priority"] == "P3"  # the closed P0 does not count
    assert (endpoint["enrichment"]["work"], endpoint["priority"]) == ([], "unknown")
    proposed = envelope["next_actions"]["filigree"]
    assert {a["issue_id"] for a in proposed} == {tracker.urgent, tracker.closed, tracker.docs}
    assert {a["action"] for a in proposed} == {"review_issue"}
    assert any("1 of 3" in w for w in envelope["warnings"])  # endpoint has no SEI


@pytest.mark.filigree
def test_reverify_priority_sort_uses_the_linked_work(
        tracker: Tracker, linked_repo: FixtureRepo, filigree_at: Any) -> None:
    filigree_at(tracker.server.base_url)
    envelope = _reverify(linked_repo, rev_range="HEAD~1..HEAD", include_federation=True,
                         sort_by="priority", group_by="none")
    assert [i["priority"] for i in envelope["data"]["items"]] == ["P1", "P3", "unknown"]


@pytest.mark.filigree
def test_reverify_with_federation_is_absent_when_no_item_is_linked(
        tracker: Tracker, tmp_path: Path, filigree_at: Any) -> None:
    repo = _repo(tmp_path / "repo")
    _reverify(repo, rev_range="HEAD~1..HEAD")
    _set_seis(repo, {HELPER: sei("unlinked-1"), CALLER: sei("unlinked-2"),
                     ENDPOINT: sei("unlinked-3")})
    filigree_at(tracker.server.base_url)
    envelope = _reverify(repo, rev_range="HEAD~1..HEAD", include_federation=True)

    assert envelope["enrichment"]["work"] == "absent"
    assert {i["priority"] for i in envelope["data"]["items"]} == {"unknown"}
    assert "filigree" not in envelope["next_actions"]


@pytest.mark.filigree
def test_cli_reverify_federation_reads_the_dashboard_from_configuration(
        tracker: Tracker, linked_repo: FixtureRepo) -> None:
    result = _cli("reverify", "HEAD~1..HEAD", "--federation", "--repo", str(linked_repo.path),
                  "--json", env={ENV_VAR: tracker.server.base_url})
    assert result.returncode == 0, result.stderr
    envelope = json.loads(result.stdout)
    assert_valid_envelope(envelope)
    assert envelope["enrichment"]["work"] == "present"
    assert _items(envelope)[HELPER]["priority"] == "P1"


def test_an_unreachable_filigree_leaves_the_local_worklist_whole(
        linked_repo: FixtureRepo, filigree_at: Any) -> None:
    local = _reverify(linked_repo, rev_range="HEAD~1..HEAD")
    filigree_at(f"http://127.0.0.1:{free_loopback_port()}")
    envelope = _reverify(linked_repo, rev_range="HEAD~1..HEAD", include_federation=True)

    assert envelope["enrichment"]["work"] == "unavailable"
    assert [i["entity"] for i in envelope["data"]["items"]] == [
        i["entity"] for i in local["data"]["items"]]
    assert {i["priority"] for i in envelope["data"]["items"]} == {"unknown"}
    assert len(envelope["warnings"]) == len(local["warnings"]) + 1


def test_without_seis_work_is_unavailable_and_the_worklist_is_returned(
        tmp_path: Path, filigree_at: Any) -> None:
    repo = _repo(tmp_path / "repo")
    filigree_at(f"http://127.0.0.1:{free_loopback_port()}")
    envelope = _reverify(repo, rev_range="HEAD~1..HEAD", include_federation=True)

    assert envelope["enrichment"]["work"] == "unavailable"
    assert set(_items(envelope)) == {HELPER, CALLER, ENDPOINT}
    assert any("capture-snapshot" in w for w in envelope["warnings"])


def test_without_include_federation_filigree_is_not_consulted(
        linked_repo: FixtureRepo, filigree_at: Any) -> None:
    filigree_at("http://127.0.0.1:9")  # would fail loudly if it were asked
    envelope = _reverify(linked_repo, rev_range="HEAD~1..HEAD")
    assert envelope["enrichment"]["work"] == "unavailable"
    assert {i["priority"] for i in envelope["data"]["items"]} == {"unknown"}
    assert all(i["enrichment"]["work"] == [] for i in envelope["data"]["items"])


@pytest.mark.filigree
def test_linked_issue_ids_and_titles_show_in_the_table_and_the_markdown(
        tracker: Tracker, linked_repo: FixtureRepo) -> None:
    env = {ENV_VAR: tracker.server.base_url, work.DEADLINE_ENV: "2.0"}
    for fmt in ("table", "markdown"):
        done = _cli("reverify", "HEAD~1..HEAD", "--federation", "--format", fmt,
                    "--repo", str(linked_repo.path), env=env)
        assert done.returncode == 0, done.stderr
        assert f"{tracker.urgent} helper returns the wrong total" in done.stdout, fmt
        assert f"{tracker.docs} document caller" in done.stdout, fmt
