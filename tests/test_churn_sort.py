"""``churn``'s four sort keys order the answer by what they name (``churn_count``,
``sei``, ``locator``, ``last_changed_at``), in both orders; ties keep locator order, and
an entity with no change in the window has no time: last in either order.

Until 2026-12-01 ``locator`` and ``last_changed_at`` were accepted and sorted by the
count (a silent wrong answer). A real repository: three functions whose counts, names and
last-change times disagree with each other, so each key gives its own order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FixtureRepo
from warpline.registry import call_tool

# Counts b 4, c 3, a 2; last changed a (v4), then b (v3), then c (v2).
VERSIONS = [
    {"a": 1, "b": 1, "c": 1},
    {"a": 1, "b": 2, "c": 2},
    {"a": 1, "b": 3, "c": 3},
    {"a": 1, "b": 4, "c": 3},
    {"a": 2, "b": 4, "c": 3},
]
LOC = "python:function:pkg.mod.{}"


def _module(values: dict[str, int]) -> str:
    return "".join(f"def {name}():\n    return {value}\n\n\n" for name, value in values.items())


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    fixture = FixtureRepo(tmp_path_factory.mktemp("sort") / "repo")
    for n, values in enumerate(VERSIONS):
        fixture.commit({"pkg/mod.py": _module(values)}, f"v{n}")
    return fixture.path


def _order(repo: Path, by: str, order: str, **extra: Any) -> list[str | None]:
    refs = [{"kind": "locator", "value": LOC.format(n)} for n in ("a", "b", "c", "zz")]
    env = call_tool("churn", {"repo": str(repo), "entity_refs": refs, "sort_by": by,
                              "sort_order": order, **extra})
    assert_valid_envelope(env)
    assert env["query"]["sort"] == {"by": by, "order": order}
    return [item["entity"]["locator"].rsplit(".", 1)[1] for item in env["data"]["items"]]


@pytest.mark.parametrize(("by", "order", "expected"), [
    ("churn_count", "desc", ["b", "c", "a", "zz"]),
    ("churn_count", "asc", ["zz", "a", "c", "b"]),
    ("locator", "asc", ["a", "b", "c", "zz"]),
    ("locator", "desc", ["zz", "c", "b", "a"]),
    ("last_changed_at", "desc", ["a", "b", "c", "zz"]),
    ("last_changed_at", "asc", ["c", "b", "a", "zz"]),
])
def test_each_key_orders_by_what_it_names(repo: Path, by: str, order: str,
                                         expected: list[str]) -> None:
    assert _order(repo, by, order) == expected


def test_an_entity_without_a_change_in_the_window_comes_last_by_time(repo: Path) -> None:
    # Only v3..v4 (the last commit): a changed; b and c have no time in this window.
    assert _order(repo, "last_changed_at", "asc",
                  window={"rev_range": "HEAD~1..HEAD"}) == ["a", "b", "c", "zz"]
    assert _order(repo, "last_changed_at", "desc",
                  window={"rev_range": "HEAD~1..HEAD"}) == ["a", "b", "c", "zz"]
