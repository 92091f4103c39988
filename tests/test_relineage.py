"""Commits ingested newest first (a read's catch-up on a long backlog, a range on demand)
end, once the store is complete, with the lineages and entity paths an ingest in history
order gives (``store/relineage.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.gitfixture import FixtureRepo
from warpline.git.repo import head_commit, open_repo
from warpline.ingest.driver import Ingestor
from warpline.store.db import Store
from warpline.store.relineage import UNORDERED_KEY

BODY = ("    total = 0\n    for item in range(10):\n        total += item * {k}\n"
        "    return total\n")


def _history(path: Path) -> FixtureRepo:
    repo = FixtureRepo(path)
    repo.commit({"pkg/a.py": "def f():\n" + BODY.format(k=1)}, message="add f")
    repo.commit({"pkg/a.py": "def g():\n" + BODY.format(k=1)}, message="rename f to g")
    repo.commit({"pkg/a.py": "def g():\n" + BODY.format(k=1) + "\n\ndef f():\n    return 7\n"},
                message="a new f reuses the name")
    repo.commit({}, message="src layout", renames={"pkg/a.py": "src/pkg/a.py"})
    for n in range(4):
        repo.commit({"src/pkg/a.py": "def g():\n" + BODY.format(k=n + 2)
                     + f"\n\ndef f():\n    return {n}\n"}, message=f"edit {n}")
    return repo


def _facts(root: Path) -> tuple[set[frozenset[tuple[str, str, str]]], dict[str, str]]:
    """Events grouped by lineage (ids aside) and each entity's path."""
    with Store.open(root) as store:
        groups: dict[int, set[tuple[str, str, str]]] = {}
        for lineage, locator, sha, kind in store.conn.execute(
                "SELECT ce.lineage, e.locator, c.sha, ce.change_kind FROM change_events ce "
                "JOIN entities e ON e.id = ce.entity_id JOIN commits c ON c.id = ce.commit_id"):
            groups.setdefault(int(lineage), set()).add((str(locator), str(sha), str(kind)))
        paths = {str(loc): str(path) for loc, path in
                 store.conn.execute("SELECT locator, path FROM entities")}
    return {frozenset(g) for g in groups.values()}, paths


def _newest_first(root: Path, count: int) -> None:
    handle = open_repo(root)
    with Store.open(root) as store:
        ingestor = Ingestor(store, handle)
        pending = ingestor.pending(head_commit(handle))
        ingestor.mark_unordered()
        ingestor.run(pending[::-1][:count])


def test_a_store_ingested_newest_first_settles_to_the_in_order_answers(tmp_path: Path) -> None:
    in_order = _history(tmp_path / "a").path
    reversed_copy = Path(shutil.copytree(in_order, tmp_path / "b"))
    handle = open_repo(in_order)
    with Store.open(in_order) as store:
        Ingestor(store, handle).catch_up(head_commit(handle))
    expected = _facts(in_order)
    assert len(expected[0]) > 2  # f, g and the new f: more than one history

    _newest_first(reversed_copy, 6)
    unsettled = _facts(reversed_copy)
    other = open_repo(reversed_copy)
    with Store.open(reversed_copy) as store:
        report = Ingestor(store, other).catch_up(head_commit(other))
        assert report.complete and not store.meta_get(UNORDERED_KEY)
    assert _facts(reversed_copy) == expected
    assert unsettled != expected  # the fixture does exercise the order


def test_an_in_order_store_is_never_replayed(tmp_path: Path) -> None:
    root = _history(tmp_path / "a").path
    handle = open_repo(root)
    with Store.open(root) as store:
        Ingestor(store, handle).catch_up(head_commit(handle))
        assert not store.meta_get(UNORDERED_KEY)  # no replay's cost after a backfill


# -- any ingest order ends with the in-order lineages ----------------------------------------

_ORDER_REPO: dict[str, Path] = {}


def _order_fixture(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], Any]:
    """One history with renames, a reused name and a file move, backfilled in order once:
    the expected lineages."""
    if "root" not in _ORDER_REPO:
        root = _history(tmp_path_factory.mktemp("order") / "repo").path
        handle = open_repo(root)
        with Store.open(root) as store:
            Ingestor(store, handle).catch_up(head_commit(handle))
        _ORDER_REPO["root"] = root
    root = _ORDER_REPO["root"]
    expected = _facts(root)
    shas = [str(c.id) for c in _walk_oldest_first(root)]
    return root, shas, expected


def _walk_oldest_first(root: Path) -> list[Any]:
    repo = open_repo(root)
    return list(repo.walk(repo.head.target,
                          pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE))


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.lists(st.integers(min_value=0, max_value=7), min_size=1, max_size=8,
                      unique=True))
def test_lineages_do_not_depend_on_the_order_commits_were_ingested_in(
        tmp_path_factory: pytest.TempPathFactory, first: list[int]) -> None:
    # ``ingest-commit`` of some commits (any of them, in any order: a hook, a script, a
    # range read on demand), then a backfill: the lineages and paths of an in-order
    # backfill, whatever came first.
    root, shas, expected = _order_fixture(tmp_path_factory)
    copy = Path(shutil.copytree(root, tmp_path_factory.mktemp("copy") / "repo"))
    shutil.rmtree(copy / ".weft")
    handle = open_repo(copy)
    for index in first:
        with Store.open(copy) as store:  # one process per commit, as ingest-commit runs
            commit = handle.get(shas[index])
            assert isinstance(commit, pygit2.Commit)
            Ingestor(store, handle).run([commit])
    with Store.open(copy) as store:
        assert Ingestor(store, handle).catch_up(head_commit(handle)).complete
    assert _facts(copy) == expected
