"""The two ways churn reads the store give the same answers: entity rows by index probes
or by one pass over the table (``store.entities.rows_by``), and grouped counts by the
lineage index or by one scan of the reachable history (``store.lineages.churn_stats``).

A real store on a real repository: many functions, several commits, a rename, refs both
stored and never seen, in numbers on both sides of each switch.
"""

from __future__ import annotations

import pytest

from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool
from warpline.store import entities, lineages
from warpline.store.db import Store

FUNCTIONS = 40


def _module(version: int, renamed: bool = False) -> str:
    names = [f"f{k}" for k in range(FUNCTIONS)]
    if renamed:
        names[3] = "f3_renamed"
    return "".join(f"def {name}(x):\n    return x + {k * (version if k % 3 == 0 else 1)}\n\n\n"
                   for k, name in enumerate(names))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    fixture = FixtureRepo(tmp_path_factory.mktemp("plans") / "repo")
    for version in range(1, 5):
        fixture.commit({f"pkg/m{n}.py": _module(version) for n in range(3)}, f"v{version}")
    fixture.commit({"pkg/m0.py": _module(4, renamed=True)}, "rename f3")
    call_tool("changed", {"repo": str(fixture.path), "limit": 1})  # backfills the store
    return fixture


def test_rows_by_the_table_pass_equals_rows_by_index_probes(
        repo: FixtureRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store.open(repo.path) as store:
        stored = [str(r[0]) for r in store.conn.execute("SELECT locator FROM entities")]
        keys = stored + [f"python:function:never.{n}" for n in range(3_000)]
        scanned = entities.rows_by(store, "locator", keys)  # keys outnumber the rows
        monkeypatch.setattr(entities, "_SCAN_RATIO", 0)  # never scan: probe every key
        probed = entities.rows_by(store, "locator", keys)
    assert scanned == probed
    assert len(scanned) == len(stored)


def test_churn_counts_by_the_lineage_index_equal_counts_by_the_scan(
        repo: FixtureRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store.open(repo.path) as store:
        all_lineages = {int(r[0]) for r in store.conn.execute(
            "SELECT DISTINCT lineage FROM entities")}
        few = set(sorted(all_lineages)[:3])
        assert lineages._few(store.conn, len(few))  # the index plan is the one taken
        assert not lineages._few(store.conn, len(all_lineages))
        by_index = lineages.churn_stats(store, few, None, None, None)
        monkeypatch.setattr(lineages, "_few", lambda conn, wanted: False)
        by_scan = lineages.churn_stats(store, few, None, None, None)
    assert by_index == by_scan
    assert sum(stat[0] for stat in by_index[0].values()) > 0


def test_a_store_wide_churn_call_answers_as_many_small_calls_do(repo: FixtureRepo) -> None:
    with Store.open(repo.path) as store:
        stored = sorted(str(r[0]) for r in store.conn.execute("SELECT locator FROM entities"))
    refs = stored + [f"python:function:never.{n}" for n in range(1_500)]
    big = call_tool("churn", {"repo": str(repo.path), "entity_refs": refs,
                              "limit": len(refs)})
    counts = {i["entity"]["locator"]: i["churn_count"] for i in big["data"]["items"]}
    for start in range(0, len(stored), 20):
        small = call_tool("churn", {"repo": str(repo.path),
                                    "entity_refs": stored[start:start + 20], "limit": 20})
        for item in small["data"]["items"]:
            assert counts[item["entity"]["locator"]] == item["churn_count"]
    assert counts["python:function:pkg.m0.f3_renamed"] == 5  # the lineage's whole history
    assert counts["python:function:never.0"] == 0
