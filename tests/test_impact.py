"""``blast_radius``: dependents of the changed entities over the built-in source's graph,
against the hand-written call graph of tests/graphfixture.py."""

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
    depths,
    edit,
    error,
    make_repo,
)


@pytest.fixture(autouse=True)
def _no_auto_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    monkeypatch.delenv("WARPLINE_EDGE_SOURCES", raising=False)


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    """Three commits, each changing one entity, and a snapshot of the last one."""
    repo = make_repo(tmp_path_factory.mktemp("impact") / "repo")
    edit(repo, *CHANGE_SHAPE_CLASS, message="Shape")  # HEAD~2
    edit(repo, *CHANGE_AREA, message="area")  # HEAD~1
    edit(repo, *CHANGE_PONG, message="pong")  # HEAD
    call("capture_snapshot", repo=str(repo.path))
    return repo


def impact(repo: FixtureRepo, **arguments: Any) -> dict[str, Any]:
    return call("blast_radius", repo=str(repo.path), **arguments)


@pytest.mark.parametrize(("depth", "expected"), [
    (0, {}),
    (1, {PING: 1}),
    (2, {PING: 1, MAKE: 2, TEST_PING: 2}),
    (3, {PING: 1, MAKE: 2, TEST_PING: 2, REGISTRY_MODULE: 3, TEST_MAKE: 3}),
    (5, {PING: 1, MAKE: 2, TEST_PING: 2, REGISTRY_MODULE: 3, TEST_MAKE: 3}),
])
def test_a_change_inside_a_cycle_reaches_its_callers_by_depth(
        shapes: FixtureRepo, depth: int, expected: dict[str, int]) -> None:
    env = impact(shapes, rev_range="HEAD~1..HEAD", depth=depth)
    assert [c["entity"]["locator"] for c in env["data"]["changed"]] == [PONG]
    assert depths(env) == expected
    assert env["data"]["completeness"] == "FULL"
    assert env["enrichment"]["edges"] == "present"
    assert env["enrichment"]["sei"] == "unavailable"  # built-in source, no loomweave index


def test_a_class_change_reaches_subclasses_then_their_constructors_callers(
        shapes: FixtureRepo) -> None:
    env = impact(shapes, rev_range="HEAD~3..HEAD~2", depth=3)
    assert [c["entity"]["locator"] for c in env["data"]["changed"]] == [SHAPE]
    assert depths(env) == {SQUARE: 1, MAKE: 2, REGISTRY_MODULE: 3, TEST_MAKE: 3}


def test_a_method_change_reaches_its_callers_only(shapes: FixtureRepo) -> None:
    env = impact(shapes, rev_range="HEAD~2..HEAD~1")
    assert depths(env) == {DESCRIBE: 1}


def test_a_module_level_reference_makes_the_module_a_dependent(shapes: FixtureRepo) -> None:
    env = impact(shapes, changed_refs=[MAKE], depth=1)
    assert depths(env) == {REGISTRY_MODULE: 1, TEST_MAKE: 1}
    module = next(a for a in env["data"]["affected"]
                  if a["entity"]["locator"] == REGISTRY_MODULE)
    assert module["via_edges"] == [{"from": REGISTRY_MODULE, "to": MAKE, "from_sei": None,
                                    "to_sei": None, "kind": "references",
                                    "confidence": "resolved"}]


def test_via_edges_run_from_the_seed_outward_with_locator_endpoints(
        shapes: FixtureRepo) -> None:
    env = impact(shapes, changed_refs=[PONG], depth=3)
    far = next(a for a in env["data"]["affected"] if a["entity"]["locator"] == TEST_MAKE)
    assert far["seed"] == PONG
    assert [(e["from"], e["to"], e["kind"]) for e in far["via_edges"]] == [
        (PING, PONG, "calls"), (MAKE, PING, "calls"), (TEST_MAKE, MAKE, "calls")]
    entity = far["entity"]
    assert (entity["path"], entity["kind"]) == ("tests/test_shapes.py", "function")
    assert isinstance(entity["warpline_entity_key_id"], int)


def test_seeds_are_the_union_of_key_ids_refs_range_and_worktree(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    edit(repo, *CHANGE_PONG)
    call("capture_snapshot", repo=str(repo.path))
    listed = call("changed", repo=str(repo.path), all_history=True)["data"]["items"]
    square_id = next(i["entity"]["warpline_entity_key_id"] for i in listed
                     if i["entity"]["locator"] == SQUARE)
    base = repo.repo.revparse_single("HEAD:shapes/base.py").peel(pygit2.Blob).data.decode()
    repo.write_worktree("shapes/base.py", base.replace("str(self.area())", "repr(self.area())"))
    env = impact(repo, rev_range="HEAD~1..HEAD", changed_refs=["shapes.base.Shape.area"],
                 changed_entity_key_ids=[square_id], include_worktree=True, depth=1)
    changed = {c["entity"]["locator"] for c in env["data"]["changed"]}
    assert changed == {PONG, AREA, SQUARE, DESCRIBE}
    assert all(c["in_snapshot"] for c in env["data"]["changed"])
    assert depths(env) == {PING: 1, MAKE: 1}


def test_refs_the_store_has_not_seen_resolve_through_the_snapshot_graph(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "0")  # ingest nothing
    call("capture_snapshot", repo=str(repo.path))
    env = impact(repo, changed_refs=[PONG, "shapes/base.py", "shapes.registry.make",
                                     "no.such.thing"], depth=1)
    changed = {c["entity"]["locator"]: c for c in env["data"]["changed"]}
    assert set(changed) == {PONG, MAKE, SHAPE, SQUARE, AREA, DESCRIBE,
                            "python:function:shapes.base.Square.area",
                            "python:module:shapes.base"}  # the file event folds in
    assert changed[PONG]["entity"]["warpline_entity_key_id"] is None
    assert depths(env)[PING] == 1
    assert env["data"]["ingest"]["complete"] is False
    assert len(env["warnings"]) >= 2  # the store is behind; one ref names nothing


def test_a_python_file_event_folds_into_its_entities_other_files_stay(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    blob = repo.repo.revparse_single("HEAD:shapes/cycle.py").peel(pygit2.Blob).data.decode()
    repo.commit({"shapes/cycle.py": blob.replace("return ping(n)", "return ping(n + 1)"),
                 "README.md": "shapes!\n"}, "two files")
    call("capture_snapshot", repo=str(repo.path))
    changed = [c["entity"]["locator"] for c in impact(repo, rev_range="HEAD~1..HEAD")[
        "data"]["changed"]]
    assert changed == ["core:file:README.md", PONG]


def test_without_a_snapshot_the_answer_is_no_graph_never_nothing_affected(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    edit(repo, *CHANGE_PONG)
    env = impact(repo, rev_range="HEAD~1..HEAD")
    data = env["data"]
    assert data["completeness"] == "NO_SNAPSHOT"
    assert data["affected"] == [] and data["total"] == 0
    assert [c["entity"]["locator"] for c in data["changed"]] == [PONG]
    assert data["changed"][0]["in_snapshot"] is None
    assert data["staleness"]["snapshot_id"] is None
    assert data["staleness"]["head_commit"] == repo.head
    assert env["enrichment"]["edges"] == "absent"
    assert env["warnings"]
    commands = [c["command"] for c in env["next_actions"]["commands"]]
    assert any(c.startswith("warpline capture-snapshot --repo ") for c in commands)
    assert "warpline_edge_snapshot_capture" in [t["tool"] for t in env["next_actions"]["tools"]]


def test_without_a_snapshot_one_is_captured_within_the_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WARPLINE_AUTO_CAPTURE_BUDGET_S")
    repo = make_repo(tmp_path / "repo")
    edit(repo, *CHANGE_PONG)
    env = impact(repo, rev_range="HEAD~1..HEAD", depth=1)
    assert env["data"]["completeness"] == "FULL"
    assert env["data"]["staleness"]["snapshot_commit"] == repo.head
    assert depths(env) == {PING: 1}
    assert env["warnings"]  # says it captured one
    again = impact(repo, rev_range="HEAD~1..HEAD", depth=1)
    assert again["data"]["staleness"]["snapshot_id"] == env["data"]["staleness"]["snapshot_id"]
    assert again["warnings"] == []


def test_no_auto_capture_over_budget_or_without_a_source(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0.000000001")
    assert impact(repo, changed_refs=[PONG])["data"]["completeness"] == "NO_SNAPSHOT"
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "30")
    monkeypatch.setenv("WARPLINE_EDGE_SOURCES", "")
    env = impact(repo, changed_refs=[PONG])
    assert (env["data"]["completeness"], env["enrichment"]["edges"]) == ("SKIPPED", "skipped")
    assert env["data"]["affected"] == [] and env["warnings"]


def test_staleness_counts_commits_behind_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    snap = call("capture_snapshot", repo=str(repo.path))["data"]
    edit(repo, *CHANGE_AREA)
    edit(repo, *CHANGE_PONG)
    env = impact(repo, rev_range="HEAD~1..HEAD", depth=1)
    stale = env["data"]["staleness"]
    assert (stale["snapshot_commit"], stale["commits_behind"], stale["is_ancestor"],
            stale["stale"]) == (snap["commit_sha"], 2, True, True)
    assert env["enrichment"]["edges"] == "stale"
    assert env["warnings"]
    assert any(c["command"].startswith("warpline capture-snapshot")
               for c in env["next_actions"]["commands"])
    assert depths(env) == {PING: 1}


def test_a_snapshot_rewritten_out_of_history_is_stale_with_no_count(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    base = repo.head
    assert base is not None
    edit(repo, *CHANGE_PONG, message="original")
    call("capture_snapshot", repo=str(repo.path))
    # A rebase-like rewrite: main now points at a sibling of the captured commit.
    repo.branch("main", base)
    repo.checkout("main")
    edit(repo, *CHANGE_AREA, message="rewritten")
    stale = impact(repo, changed_refs=[PONG])["data"]["staleness"]
    assert (stale["is_ancestor"], stale["commits_behind"], stale["stale"]) == (False, None, True)


def test_a_dirty_worktree_touching_graph_files_is_reported(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    call("capture_snapshot", repo=str(repo.path))
    repo.write_worktree("README.md", "not python, not in the graph\n")
    clean = impact(repo, changed_refs=[PONG])["data"]["staleness"]
    assert (clean["stale"], clean["dirty_paths"], clean["commits_behind"]) == (False, [], 0)
    repo.write_worktree("shapes/cycle.py", "def ping(n):\n    return 0\n")
    repo.write_worktree("shapes/new.py", "def fresh():\n    return 1\n")
    env = impact(repo, changed_refs=[PONG])
    dirty = env["data"]["staleness"]
    assert dirty["stale"] is True
    assert dirty["dirty_paths"] == ["shapes/cycle.py", "shapes/new.py"]
    assert env["enrichment"]["edges"] == "stale"


def test_filters_narrow_what_is_listed_and_edge_kinds_narrow_the_walk(
        shapes: FixtureRepo) -> None:
    class_change = {"rev_range": "HEAD~3..HEAD~2", "depth": 3}
    only_tests = impact(shapes, filters={"paths": ["tests"]}, **class_change)
    assert depths(only_tests) == {TEST_MAKE: 3}
    assert only_tests["data"]["total"] == 1
    only_classes = impact(shapes, filters={"entity_kinds": ["class"]}, **class_change)
    assert depths(only_classes) == {SQUARE: 1}
    calls_only = impact(shapes, filters={"edge_kinds": ["calls"]}, **class_change)
    assert depths(calls_only) == {}  # Square reaches Shape only by reference


def test_sorting_and_paging_walk_the_whole_answer(shapes: FixtureRepo) -> None:
    arguments = {"changed_refs": [PONG], "depth": 3, "sort_by": "locator",
                 "sort_order": "desc"}
    whole = impact(shapes, **arguments)["data"]["affected"]
    assert [a["entity"]["locator"] for a in whole] == sorted(
        [PING, MAKE, TEST_PING, REGISTRY_MODULE, TEST_MAKE], reverse=True)
    seen, cursor = [], None
    while True:
        page = impact(shapes, limit=2, cursor=cursor, **arguments)["data"]
        seen.extend(page["affected"])
        assert page["total"] == 5
        cursor = page["page"]["next_cursor"]
        if not page["page"]["has_more"]:
            assert cursor is None
            break
    assert seen == whole
    first = impact(shapes, limit=2, **arguments)["data"]["page"]["next_cursor"]
    assert error("blast_radius", repo=str(shapes.path), changed_refs=[PING], limit=2,
                 cursor=first)["error_code"] == "invalid_cursor"


@pytest.mark.parametrize(("arguments", "code", "field"), [
    ({"changed_refs": [PONG], "depth": 6}, "invalid_depth", "depth"),
    ({"changed_refs": [PONG], "depth": -1}, "invalid_depth", "depth"),
    ({"changed_refs": [PONG], "depth": "2"}, "invalid_depth", "depth"),
    ({"changed_refs": [PONG], "depth": True}, "invalid_depth", "depth"),
    ({"changed_refs": [{"kind": "nope", "value": "x"}]}, "invalid_changed_refs",
     "changed_refs.0.kind"),
    ({"changed_refs": [7]}, "invalid_changed_refs", "changed_refs.0"),
    ({"changed_refs": "shapes.cycle.pong"}, "invalid_changed_refs", "changed_refs"),
    ({"changed_refs": [{"kind": "warpline_entity_key_id", "value": "x"}]},
     "invalid_changed_refs", "changed_refs[0].value"),
    ({"rev_range": "no-such-rev..HEAD"}, "invalid_rev_range", "rev_range"),
    ({"rev_range": "HEAD~1...HEAD"}, "invalid_rev_range", "rev_range"),
    ({"changed_refs": [PONG], "filters": {"colour": ["red"]}}, "invalid_filter",
     "filters.colour"),
    ({"changed_refs": [PONG], "sort_by": "size"}, "invalid_sort", "sort_by"),
    ({"changed_refs": [PONG], "cursor": "garbage"}, "invalid_cursor", "cursor"),
    ({"changed_refs": [PONG], "changed_entity_key_ids": [0]}, "invalid_argument",
     "changed_entity_key_ids.0"),
])
@pytest.mark.parametrize("tool", ["blast_radius", "reverify"])
def test_graph_queries_reject_bad_arguments_with_the_right_code(
        shapes: FixtureRepo, tool: str, arguments: dict[str, Any], code: str,
        field: str) -> None:
    payload = error(tool, repo=str(shapes.path), **arguments)
    assert (payload["error_code"], payload["rejected_field"]) == (code, field)


def test_a_wholly_ingested_range_is_not_partial_while_the_store_is_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpline.git.repo import open_repo
    from warpline.ingest.driver import Ingestor
    from warpline.store.db import Store

    repo = make_repo(tmp_path / "repo")
    for n in range(3):
        repo.commit({f"notes/n{n}.py": f"X = {n}\n"}, f"note {n}")
    head = edit(repo, "shapes/base.py", "str(self.area())", "repr(self.area())")
    handle = open_repo(repo.path)
    with Store.open(repo.path) as store:  # only the range's commit, as a newest-first read
        Ingestor(store, handle).run([handle[head].peel(pygit2.Commit)])
    monkeypatch.setenv("WARPLINE_INTERACTIVE_BUDGET_S", "0")  # ingest nothing more
    call("capture_snapshot", repo=str(repo.path))
    env = impact(repo, rev_range="HEAD~1..HEAD", depth=1)
    assert env["data"]["ingest"]["range_complete"] is True
    assert env["data"]["ingest"]["commits_behind"] == 4
    assert not [w for w in env["warnings"] if "commits behind HEAD" in w]
    assert {c["entity"]["locator"] for c in env["data"]["changed"]} == {DESCRIBE}
    wider = impact(repo, rev_range="HEAD~2..HEAD", depth=1)
    assert wider["data"]["ingest"]["range_complete"] is False
    assert any("commits behind HEAD" in w for w in wider["warnings"])
