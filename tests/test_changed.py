"""``changed``: ranges, worktree changes, filters, sort, paging, next actions, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.errors import WarplineError
from warpline.registry import call_tool

FOUR = "\n\n".join(f"def f{k}():\n    return {k}\n" for k in range(4)) + "\n"


def _call(**arguments: Any) -> dict[str, Any]:
    if not {"rev_range", "base_ref", "head_ref"} & set(arguments):
        arguments.setdefault("all_history", True)  # every recorded change, not my work
    env = call_tool("changed", arguments)
    assert_valid_envelope(env)
    return env


def _locators(env: dict[str, Any]) -> set[str]:
    return {i["entity"]["locator"] for i in env["data"]["items"]}


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    r = FixtureRepo(tmp_path / "repo")
    r.commit({"src/demo/calc.py": FOUR}, message="one", author=("Ann", "ann@example.com"))
    r.commit({"src/demo/calc.py": FOUR.replace("return 2", "return 22")}, message="two",
             author=("Bob", "bob@example.com"))
    r.commit({"src/demo/util.py": "X = 1\n"}, message="three", author=("Ann", "ann@example.com"))
    return r


def test_a_single_rev_means_that_one_commit(repo: FixtureRepo) -> None:
    env = _call(repo=str(repo.path), rev_range="HEAD~1")
    assert _locators(env) == {"python:function:demo.calc.f2", "core:file:src/demo/calc.py"}
    item = next(i for i in env["data"]["items"] if i["entity"]["kind"] == "function")
    assert item["change_kind"] == "modified"
    assert item["actor"] == "Bob <bob@example.com>"
    assert item["changed_at"].endswith("Z")
    assert item["change_id"].startswith("warpline:change:")


def test_a_range_covers_the_commits_after_its_base(repo: FixtureRepo) -> None:
    env = _call(repo=str(repo.path), rev_range="HEAD~2..HEAD")
    assert _locators(env) == {"python:function:demo.calc.f2", "core:file:src/demo/calc.py",
                              "python:module:demo.util", "core:file:src/demo/util.py"}


def test_base_and_head_refs_equal_the_range_form(repo: FixtureRepo) -> None:
    by_range = _call(repo=str(repo.path), rev_range="HEAD~2..HEAD")
    by_refs = _call(repo=str(repo.path), base_ref="HEAD~2", head_ref="HEAD")
    assert by_range["data"]["items"] == by_refs["data"]["items"]


def test_no_range_lists_every_recorded_change(repo: FixtureRepo) -> None:
    env = _call(repo=str(repo.path), limit=500)
    assert env["data"]["total"] == len(env["data"]["items"]) == 1 + 5 + 2 + 2


def test_worktree_changes_are_added_and_marked_never_stored(repo: FixtureRepo) -> None:
    head = FOUR.replace("return 2", "return 22")
    repo.write_worktree("src/demo/calc.py", head.replace("return 3", "return 33"))
    env = _call(repo=str(repo.path), rev_range="HEAD", include_worktree=True)
    worktree = [i for i in env["data"]["items"] if i["origin"] == "worktree"]
    assert {i["entity"]["locator"] for i in worktree} == {"python:function:demo.calc.f3",
                                                          "core:file:src/demo/calc.py"}
    assert all(i["commit"] is None for i in worktree)
    again = _call(repo=str(repo.path), rev_range="HEAD")
    assert all(i["origin"] == "commit" for i in again["data"]["items"])


def test_filters_narrow_by_kind_path_and_actor(repo: FixtureRepo) -> None:
    env = _call(repo=str(repo.path), filters={"entity_kinds": ["function"]}, limit=500)
    assert {i["entity"]["kind"] for i in env["data"]["items"]} == {"function"}
    env = _call(repo=str(repo.path), filters={"paths": ["src/demo/util.py"]})
    assert _locators(env) == {"python:module:demo.util", "core:file:src/demo/util.py"}
    env = _call(repo=str(repo.path), filters={"actors": ["bob@"]})
    assert {i["actor"] for i in env["data"]["items"]} == {"Bob <bob@example.com>"}
    env = _call(repo=str(repo.path), filters={"change_kinds": ["modified"]})
    assert {i["change_kind"] for i in env["data"]["items"]} == {"modified"}


def test_since_and_until_compare_instants_across_offsets(repo: FixtureRepo) -> None:
    everything = _call(repo=str(repo.path), limit=500)["data"]["items"]
    newest = max(i["changed_at"] for i in everything)
    env = _call(repo=str(repo.path), filters={"since": newest})
    assert {i["changed_at"] for i in env["data"]["items"]} == {newest}
    # The same instant written with a +02:00 offset selects the same events.
    hour = int(newest[11:13])
    shifted = f"{newest[:11]}{hour + 2:02d}{newest[13:-1]}+02:00"
    env2 = _call(repo=str(repo.path), filters={"since": shifted})
    assert env2["data"]["items"] == env["data"]["items"]


def test_cursor_pages_for_real_without_gaps_or_repeats(repo: FixtureRepo) -> None:
    seen: list[str] = []
    cursor = None
    for _ in range(20):
        env = _call(repo=str(repo.path), limit=3, cursor=cursor, sort_by="locator",
                    sort_order="asc")
        seen.extend(i["change_id"] for i in env["data"]["items"])
        cursor = env["data"]["page"]["next_cursor"]
        assert env["data"]["page"]["has_more"] == (cursor is not None)
        if cursor is None:
            break
    everything = _call(repo=str(repo.path), limit=500, sort_by="locator", sort_order="asc")
    assert seen == [i["change_id"] for i in everything["data"]["items"]]
    assert len(seen) == len(set(seen)) == 10


def test_sort_orders_are_honoured(repo: FixtureRepo) -> None:
    asc = _call(repo=str(repo.path), sort_by="changed_at", sort_order="asc", limit=500)
    times = [i["changed_at"] for i in asc["data"]["items"]]
    assert times == sorted(times)


def test_next_actions_are_bounded_and_ready_to_call(tmp_path: Path) -> None:
    r = FixtureRepo(tmp_path / "big")
    r.commit({f"pkg/m{n}.py": FOUR for n in range(80)}, message="many files")
    env = _call(repo=str(r.path), limit=5)
    assert len(env["data"]["changed_refs"]) <= 200
    assert env["warnings"], "truncated refs must be said"
    for action in env["next_actions"].get("tools", []):
        assert action["arguments"]["repo"] == str(r.path)


@pytest.mark.parametrize(
    ("arguments", "code", "field"),
    [
        ({"rev_range": "nope..HEAD"}, "invalid_rev_range", "rev_range"),
        ({"rev_range": "HEAD", "base_ref": "HEAD~1"}, "invalid_rev_range", "rev_range"),
        ({"head_ref": "missing-branch"}, "invalid_rev_range", "head_ref"),
        ({"cursor": "garbage!"}, "invalid_cursor", "cursor"),
        ({"sort_by": "colour"}, "invalid_sort", "sort_by"),
        ({"filters": {"colour": ["red"]}}, "invalid_filter", "filters.colour"),
        ({"filters": {"since": "last tuesday"}}, "invalid_filter", "filters.since"),
        ({"limit": "5"}, "invalid_argument", "limit"),
        ({"bogus": 1}, "invalid_argument", "bogus"),
    ],
)
def test_bad_input_names_the_field(repo: FixtureRepo, arguments: dict[str, Any], code: str,
                                   field: str) -> None:
    with pytest.raises(WarplineError) as err:
        call_tool("changed", {"repo": str(repo.path), **arguments})
    assert err.value.code == code
    assert err.value.field == field


def test_a_cursor_from_another_query_is_refused(repo: FixtureRepo) -> None:
    env = _call(repo=str(repo.path), limit=2)
    with pytest.raises(WarplineError) as err:
        call_tool("changed", {"repo": str(repo.path), "limit": 2, "sort_by": "locator",
                              "all_history": True,
                              "cursor": env["data"]["page"]["next_cursor"]})
    assert err.value.code == "invalid_cursor"


def test_missing_repo_outside_any_repository_is_missing_required_field(
        tmp_path: Path) -> None:
    with pytest.raises(WarplineError) as err:
        call_tool("changed", {}, cwd=tmp_path)
    assert err.value.code == "missing_required_field"
    assert err.value.field == "repo"


def test_no_arguments_mean_my_work_in_the_working_directorys_repository(
        repo: FixtureRepo) -> None:
    """Issue 34: `changed {}` from inside a repository (a subdirectory too) answers for
    it, and for my work: without an upstream the work tree only, said in a warning."""
    (repo.path / "app").mkdir(exist_ok=True)
    (repo.path / "app" / "new.py").write_text("def fresh():\n    return 1\n")
    env = call_tool("changed", {}, cwd=repo.path / "app")
    assert_valid_envelope(env)
    assert env["query"]["repo"] == str(repo.path.resolve())
    assert env["data"]["range"]["rev_range"] == "HEAD..HEAD"
    assert {i["origin"] for i in env["data"]["items"]} == {"worktree"}
    assert any("upstream" in w for w in env["warnings"])
    everything = call_tool("changed", {"all_history": True}, cwd=repo.path)
    assert {i["origin"] for i in everything["data"]["items"]} == {"commit"}
