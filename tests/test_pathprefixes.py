"""``filters.paths``: the same answers as the prefix rule always gave (``p`` or ``p/...``,
no globbing, no LIKE wildcards), in time linear in the number of paths."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool
from warpline.store.db import Store
from warpline.store.events import Where, select_events
from warpline.store.pathprefixes import PathPrefixes

# Names chosen to catch a prefix that is a bare string prefix (a/b vs a/bc), LIKE and glob
# metacharacters, spaces and non-ASCII.
FILES = ["a.py", "a/b.py", "a/b/c.py", "a/bc.py", "ab/c.py", "a b/c.py", "docs/x.md",
         "ä/ü.py", "%/_x.py", "*/x.py", "a/[b]/d.py", "top.txt"]
PREFIXES = ["a", "a/b", "a/b/c.py", "a/bc", "ab", "a b", "ä", "%", "_", "*", "a/[b]", "a/*",
            "a/b/", "/a/b", "\\a\\b", "req", "a.", "docs/x.md", "top", "nowhere/at/all",
            "a/b/c", "a/%", "a/_c.py"]


def _body(k: int) -> str:
    return f"def f{k}():\n    return {k}\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    r = FixtureRepo(tmp_path_factory.mktemp("paths") / "repo")
    r.commit({name: _body(0) for name in FILES}, message="add")
    r.commit({name: _body(1) for name in FILES[::2]}, message="edit half")
    r.commit({name: _body(2) for name in FILES[1::3]}, message="edit a third")
    call_tool("changed", {"repo": str(r.path), "limit": 1})  # ingest once
    return r


def _ids(repo: FixtureRepo, paths: list[str] | None, **extra: Any) -> list[str]:
    arguments: dict[str, Any] = {"repo": str(repo.path), "limit": 500, "all_history": True,
                                 **extra}
    if paths is not None:
        arguments["filters"] = {"paths": paths}
    env = call_tool("changed", arguments)
    assert_valid_envelope(env)
    assert env["data"]["total"] == len(env["data"]["items"])
    return [i["change_id"] for i in env["data"]["items"]]


def _rule(path: str, prefixes: list[str]) -> bool:
    norm = [p.replace("\\", "/").strip("/") for p in prefixes]
    return any(path == p or path.startswith(p + "/") for p in norm)


def _db(repo: FixtureRepo) -> sqlite3.Connection:
    return sqlite3.connect(repo.path / ".weft" / "warpline" / "warpline.db")


def _old_sql(repo: FixtureRepo, prefixes: list[str]) -> list[str]:
    """The predicate the store used before (one JSON parameter parsed per row), run on the
    same store: the answers must not move."""
    norm = [p.replace("\\", "/").strip("/") for p in prefixes]
    with _db(repo) as conn:
        rows = conn.execute(
            "SELECT ce.id FROM change_events ce JOIN commits c ON c.id = ce.commit_id "
            "WHERE c.reachable = 1 AND EXISTS (SELECT 1 FROM json_each(?) p WHERE "
            "ce.path = p.value OR substr(ce.path, 1, length(p.value) + 1) = p.value || '/')",
            [json.dumps(norm)]).fetchall()
    return [f"warpline:change:{r[0]}" for r in rows]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_one_prefix_selects_what_the_prefix_rule_and_the_old_query_select(
        repo: FixtureRepo, prefix: str) -> None:
    env = call_tool("changed", {"repo": str(repo.path), "limit": 500, "all_history": True})
    every = {i["change_id"]: i["entity"]["path"] for i in env["data"]["items"]}
    want = sorted(cid for cid, path in every.items() if _rule(path, [prefix]))
    got = _ids(repo, [prefix])
    assert sorted(got) == want == sorted(_old_sql(repo, [prefix]))


def test_many_prefixes_at_once_and_the_schema_maximum(repo: FixtureRepo) -> None:
    env = call_tool("changed", {"repo": str(repo.path), "limit": 500, "all_history": True})
    every = {i["change_id"]: i["entity"]["path"] for i in env["data"]["items"]}
    for prefixes in (PREFIXES, ["a/b", "a"], ["a/b/c.py", "nowhere"],
                     PREFIXES + [f"miss/{k}" for k in range(1000 - len(PREFIXES))]):
        want = sorted(cid for cid, path in every.items() if _rule(path, prefixes))
        got = _ids(repo, prefixes)
        assert sorted(got) == want == sorted(_old_sql(repo, prefixes))
        # The order of a filtered answer is the unfiltered order, narrowed.
        assert got == [cid for cid in every if cid in set(got)]
    assert 0 < len(_ids(repo, ["a"])) < len(every)


def test_uncommitted_changes_are_filtered_by_the_same_rule(repo: FixtureRepo) -> None:
    repo.write_worktree("a/bc.py", _body(9))
    repo.write_worktree("a/b/c.py", _body(9))
    try:
        env = call_tool("changed", {"repo": str(repo.path), "rev_range": "HEAD",
                                    "include_worktree": True, "limit": 500,
                                    "filters": {"paths": ["a/b"]}})
        worktree = {i["entity"]["path"] for i in env["data"]["items"]
                    if i["origin"] == "worktree"}
        assert worktree == {"a/b/c.py"}
    finally:
        repo.write_worktree("a/bc.py", _body(1))
        repo.write_worktree("a/b/c.py", _body(2))


def test_the_matcher_is_the_rule() -> None:
    paths = [*FILES, "a", "a//b", "ab", "x/a/b"]
    for prefix in [*PREFIXES, "a/", "a//b"]:
        norm = prefix.replace("\\", "/").strip("/")
        matcher = PathPrefixes([norm])
        for path in paths:
            assert matcher.matches(path) == _rule(path, [prefix]), (prefix, path)
    assert not PathPrefixes([])


def _steps(repo: FixtureRepo, paths: list[str]) -> int:
    """SQLite virtual-machine steps (in hundreds) one filtered query costs: work, counted
    without a clock."""
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    with _db(repo) as conn:
        conn.set_progress_handler(tick, 100)
        select_events(Store(conn, repo.path / ".weft" / "warpline" / "warpline.db"), None,
                      Where(paths=paths), "changed_at", "desc", 50)
    return count[0]


def test_the_query_cost_does_not_grow_with_the_number_of_prefixes(repo: FixtureRepo) -> None:
    one = _steps(repo, ["nowhere/0"])
    thousand = _steps(repo, [f"nowhere/{k}" for k in range(1000)])
    # Before: every row compared with every prefix (thousands of steps per row here);
    # now the thousand prefixes cost one temporary table's inserts.
    assert thousand < one + 400, (one, thousand)


def test_paths_matched_once_per_query_not_per_row(repo: FixtureRepo) -> None:
    one = _steps(repo, ["a"])
    many = _steps(repo, ["a"] + [f"nowhere/{k}" for k in range(999)])
    assert many < one + 400, (one, many)
