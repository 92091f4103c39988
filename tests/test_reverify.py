"""``reverify``: changed first, then dependents with their why path, derived test
commands, grouping, verification freshness (built-in source, hand-written expectations)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.gitfixture import FixtureRepo
from tests.graphfixture import (
    AREA,
    CHANGE_AREA,
    CHANGE_PONG,
    CHANGE_SHAPE_CLASS,
    CMD_TEST_MAKE,
    CMD_TEST_PING,
    DESCRIBE,
    MAKE,
    PING,
    PONG,
    REGISTRY_MODULE,
    SHAPE,
    SQUARE,
    TEST_MAKE,
    TEST_PING,
    call,
    edit,
    make_repo,
)


@pytest.fixture(autouse=True)
def _no_auto_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    monkeypatch.delenv("WARPLINE_EDGE_SOURCES", raising=False)


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    repo = make_repo(tmp_path_factory.mktemp("reverify") / "repo")
    edit(repo, *CHANGE_SHAPE_CLASS, message="Shape")  # HEAD~2
    edit(repo, *CHANGE_AREA, message="area")  # HEAD~1
    edit(repo, *CHANGE_PONG, message="pong")  # HEAD
    call("capture_snapshot", repo=str(repo.path))
    return repo


def reverify(repo: FixtureRepo, **arguments: Any) -> dict[str, Any]:
    return call("reverify", repo=str(repo.path), **arguments)


def _commands(item: dict[str, Any]) -> list[str | None]:
    return [s["command"] for s in item["suggested_verification"]]


def _rows(env: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(i["entity"]["locator"], i["reason"], i["depth"]) for i in env["data"]["items"]]


def test_changed_first_then_dependents_with_the_tests_that_reach_them(
        shapes: FixtureRepo) -> None:
    env = reverify(shapes, rev_range="HEAD~1..HEAD", depth=3)
    assert _rows(env) == [
        (PONG, "changed", 0),
        (PING, "downstream", 1),
        (MAKE, "downstream", 2),
        (TEST_PING, "downstream", 2),
        (TEST_MAKE, "downstream", 3),
        (REGISTRY_MODULE, "downstream", 3),
    ]
    items = {i["entity"]["locator"]: i for i in env["data"]["items"]}
    assert _commands(items[PONG]) == [CMD_TEST_PING, CMD_TEST_MAKE]
    assert [s["distance"] for s in items[PONG]["suggested_verification"]] == [2, 3]
    assert _commands(items[PING]) == [CMD_TEST_PING, CMD_TEST_MAKE]
    assert _commands(items[MAKE]) == [CMD_TEST_MAKE]
    assert _commands(items[TEST_PING]) == [CMD_TEST_PING]
    assert items[TEST_PING]["suggested_verification"][0]["distance"] == 0
    module = items[REGISTRY_MODULE]["suggested_verification"]
    assert [(s["kind"], s["command"], s["callers"]) for s in module] == [
        ("inspection", None, [])]
    assert items[PONG]["why"] == [] and items[PONG]["seed"] is None
    assert [(e["from"], e["to"]) for e in items[MAKE]["why"]] == [(PING, PONG), (MAKE, PING)]
    assert items[MAKE]["seed"] == PONG
    assert all(i["priority"] == "unknown" for i in env["data"]["items"])
    assert env["enrichment"]["work"] == "unavailable"
    union = env["next_actions"]["commands"][0]["command"]
    assert union == ("pytest tests/test_shapes.py::TestCycle::test_ping "
                     "tests/test_shapes.py::test_make")


def test_when_no_test_reaches_an_item_it_names_the_callers_to_read(shapes: FixtureRepo) -> None:
    env = reverify(shapes, rev_range="HEAD~2..HEAD~1")
    assert _rows(env) == [(AREA, "changed", 0), (DESCRIBE, "downstream", 1)]
    area, describe = env["data"]["items"]
    assert [(s["kind"], s["callers"]) for s in area["suggested_verification"]] == [
        ("inspection", [DESCRIBE])]
    assert [(s["kind"], s["callers"]) for s in describe["suggested_verification"]] == [
        ("inspection", [])]
    # Nothing reaches the change: never an empty test list with nothing said.
    selection = env["data"]["selection"]
    assert (selection["basis"], selection["tests_selected"]) == ("none", 0)
    assert selection["entities_without_tests"] == [AREA]
    assert env["next_actions"]["commands"][0]["command"] == "pytest"


def test_a_class_change_suggests_the_test_that_constructs_its_subclass(
        shapes: FixtureRepo) -> None:
    env = reverify(shapes, rev_range="HEAD~3..HEAD~2")
    assert _rows(env) == [(SHAPE, "changed", 0), (SQUARE, "downstream", 1),
                          (MAKE, "downstream", 2)]
    for item, distance in zip(env["data"]["items"], (3, 2, 1), strict=True):
        assert _commands(item) == [CMD_TEST_MAKE]
        assert item["suggested_verification"][0]["distance"] == distance


@pytest.mark.parametrize(("group_by", "sort", "expected", "groups"), [
    ("file", {}, [PONG, PING, MAKE, REGISTRY_MODULE, TEST_PING, TEST_MAKE],
     [("shapes/cycle.py", 2), ("shapes/registry.py", 2), ("tests/test_shapes.py", 2)]),
    ("reason", {}, [PONG, PING, MAKE, TEST_PING, TEST_MAKE, REGISTRY_MODULE],
     [("changed", 1), ("downstream", 5)]),
    ("entity", {"sort_by": "locator"},
     [PONG, PING, MAKE, TEST_PING, TEST_MAKE, REGISTRY_MODULE], []),
    ("none", {"sort_by": "locator"},
     [PING, PONG, MAKE, TEST_PING, TEST_MAKE, REGISTRY_MODULE], []),
    ("none", {"sort_by": "depth", "sort_order": "desc"},
     [TEST_MAKE, REGISTRY_MODULE, MAKE, TEST_PING, PING, PONG], []),
])
def test_group_by_and_sort(shapes: FixtureRepo, group_by: str, sort: dict[str, str],
                           expected: list[str], groups: list[tuple[str, int]]) -> None:
    env = reverify(shapes, rev_range="HEAD~1..HEAD", depth=3, group_by=group_by, **sort)
    assert [i["entity"]["locator"] for i in env["data"]["items"]] == expected
    assert [(g["key"], g["count"]) for g in env["data"]["groups"]] == groups
    keys = [i["group"] for i in env["data"]["items"]]
    if group_by == "file":
        assert keys == [i["entity"]["path"] for i in env["data"]["items"]]
    elif group_by == "reason":
        assert keys == [i["reason"] for i in env["data"]["items"]]
    else:
        assert set(keys) == {None}


def test_pages_of_a_grouped_worklist_join_up(shapes: FixtureRepo) -> None:
    arguments = {"rev_range": "HEAD~1..HEAD", "depth": 3, "group_by": "file"}
    whole = reverify(shapes, **arguments)["data"]
    seen, cursor = [], None
    for _ in range(10):
        page = reverify(shapes, limit=4, cursor=cursor, **arguments)["data"]
        seen.extend(page["items"])
        assert page["groups"] == whole["groups"]
        assert page["verification_summary"] == whole["verification_summary"]
        cursor = page["page"]["next_cursor"]
        if cursor is None:
            break
    assert seen == whole["items"]


def test_filters_by_reason_kind_and_path(shapes: FixtureRepo) -> None:
    base = {"rev_range": "HEAD~1..HEAD", "depth": 3}
    downstream = reverify(shapes, filters={"reasons": ["downstream"]}, **base)
    assert PONG not in [i["entity"]["locator"] for i in downstream["data"]["items"]]
    assert downstream["data"]["total"] == 5
    tests = reverify(shapes, filters={"paths": ["tests/"], "entity_kinds": ["function"]},
                     **base)
    assert [i["entity"]["locator"] for i in tests["data"]["items"]] == [TEST_PING, TEST_MAKE]


def test_verification_freshness_follows_recorded_verifications(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    edit(repo, *CHANGE_PONG)
    call("capture_snapshot", repo=str(repo.path))
    question = {"rev_range": "HEAD~1..HEAD", "depth": 1}
    before = reverify(repo, **question)["data"]
    assert before["verification_summary"] == {"fresh": 0, "stale": 0, "unverified": 2}
    call("verify_record", repo=str(repo.path), commit="HEAD", kind="test_pass")
    verified = reverify(repo, **question)["data"]
    assert verified["verification_summary"] == {"fresh": 2, "stale": 0, "unverified": 0}
    assert {i["verification"]["last_verified_commit"] for i in verified["items"]} == {repo.head}
    other_kind = reverify(repo, verified_kinds=["ci_pass"], **question)["data"]
    assert other_kind["verification_summary"]["unverified"] == 2
    edit(repo, "shapes/cycle.py", "return ping(n + 0)", "return ping(n + 2)")
    stale = reverify(repo, filters={"verification_states": ["stale"]}, **question)["data"]
    assert [i["entity"]["locator"] for i in stale["items"]] == [PONG, PING]
    assert all(i["verification"]["commits_behind"] == 1 for i in stale["items"])
    fresh_only = reverify(repo, filters={"verification_states": ["fresh"]}, **question)
    assert fresh_only["data"]["items"] == []


def test_an_uncommitted_change_is_never_verified(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    call("capture_snapshot", repo=str(repo.path))
    call("verify_record", repo=str(repo.path), commit="HEAD", kind="test_pass")
    blob = repo.repo.revparse_single("HEAD:shapes/cycle.py").peel(pygit2.Blob).data.decode()
    repo.write_worktree("shapes/cycle.py", blob.replace("return ping(n)", "return ping(1)"))
    env = reverify(repo, include_worktree=True, depth=1)
    assert _rows(env) == [(PONG, "changed", 0), (PING, "downstream", 1)]
    assert {i["verification"]["state"] for i in env["data"]["items"]} == {"unverified"}


def test_without_a_snapshot_changed_items_still_come_with_inspection(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    edit(repo, *CHANGE_PONG)
    env = reverify(repo, rev_range="HEAD~1..HEAD")
    assert env["data"]["completeness"] == "NO_SNAPSHOT"
    assert _rows(env) == [(PONG, "changed", 0)]
    [entry] = env["data"]["items"][0]["suggested_verification"]
    assert (entry["kind"], entry["command"]) == ("inspection", None)
    assert any(c["command"].startswith("warpline capture-snapshot")
               for c in env["next_actions"]["commands"])


def test_federation_without_seis_says_work_is_unavailable(shapes: FixtureRepo) -> None:
    env = reverify(shapes, rev_range="HEAD~1..HEAD", include_federation=True)
    assert env["enrichment"]["work"] == "unavailable"
    assert all(i["priority"] == "unknown" for i in env["data"]["items"])
    assert env["warnings"]


def test_next_actions_offer_the_sibling_query_with_the_same_seeds(shapes: FixtureRepo) -> None:
    env = reverify(shapes, rev_range="HEAD~1..HEAD", depth=3)
    [tool] = [t for t in env["next_actions"]["tools"]
              if t["tool"] == "warpline_impact_radius_get"]
    assert tool["arguments"] == {"repo": str(shapes.path), "depth": 3,
                                 "rev_range": "HEAD~1..HEAD"}
    impact = call(tool["tool"], **tool["arguments"])
    assert {a["entity"]["locator"] for a in impact["data"]["affected"]} == {
        i["entity"]["locator"] for i in env["data"]["items"] if i["reason"] == "downstream"}
