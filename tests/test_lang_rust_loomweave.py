"""loomweave's own churn consumer over a Rust crate, end to end: ``loomweave serve``
(with its Rust plugin) asks the real ``warpline-mcp`` for churn of ``rust:`` ids, and the
counts are the history's true ones (warpline's ids are loomweave's own, so they join)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gitfixture import FixtureRepo
from tests.test_loomweave_churn_consumer import _Client, serve

pytestmark = pytest.mark.loomweave

MANIFEST = '[package]\nname = "demo-crate"\nversion = "0.1.0"\nedition = "2021"\n'
LIB = ("pub mod shapes;\n\npub fn area(r: f64) -> f64 {{\n    r * r{}\n}}\n\n"
       "pub struct Point {{\n    pub x: i32,{}\n}}\n")
SHAPES = ("pub struct Shape;\n\npub trait Area {{\n    fn area(&self) -> f64;\n}}\n\n"
          "impl Area for Shape {{\n    fn area(&self) -> f64 {{\n        1.0{}\n    }}\n}}\n")
# The true counts this history produces (added + edits), per entity.
EXPECTED = {
    "rust:function:demo_crate.area": 4,
    "rust:function:demo_crate.shapes.Shape.impl[Area].area": 3,
    "rust:struct:demo_crate.Point": 2,
}


def _history(root: Path) -> FixtureRepo:
    repo = FixtureRepo(root)
    repo.commit({"Cargo.toml": MANIFEST, "src/lib.rs": LIB.format("", ""),
                 "src/shapes.rs": SHAPES.format("")}, message="init")
    for i in range(3):
        repo.commit({"src/lib.rs": LIB.format(f" + {i}.0", "")}, message=f"area {i}")
    repo.commit({"src/lib.rs": LIB.format(" + 2.0", "\n    pub y: i32,")}, message="point")
    for i in range(2):
        repo.commit({"src/shapes.rs": SHAPES.format(f" + {i}.0")}, message=f"shape {i}")
    return repo


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    base = tmp_path_factory.mktemp("lwrust")
    yield from serve(base, _history(base / "repo"))


def test_high_churn_over_a_rust_crate_has_true_counts(served: _Client) -> None:
    result = served.tool("entity_high_churn_list", {"limit": 50})
    assert result["churn_source"] == "warpline"
    assert not result.get("churn_unresolved")
    counts = {e["id"]: e["churn_count"] for e in result["entities"]}
    for locator, count in EXPECTED.items():
        assert counts[locator] == count, (locator, counts)
    ranked = [e["churn_count"] for e in result["entities"]]
    assert ranked == sorted(ranked, reverse=True)
