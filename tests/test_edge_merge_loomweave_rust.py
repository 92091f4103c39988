"""loomweave's Rust plugin federated with the built-in extractor, over the real loomweave.

loomweave indexes the workspace (its Rust plugin, its own parser): the capture keeps its
entities, SEIs and edges, and the built-in extractor adds what it lacks (method calls by
the receiver's type, trait dispatch as candidates, the cargo test facts), each source's
share stated in the edge basis.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from tests.graphfixture import call
from tests.test_graph_rust import FILES
from warpline.store.db import store_path

pytestmark = [
    pytest.mark.loomweave,
    pytest.mark.skipif(shutil.which("loomweave") is None
                       or shutil.which("loomweave-plugin-rust") is None,
                       reason="loomweave and its Rust plugin are not installed"),
]
C = "rust:function:shop_core"


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    monkeypatch.delenv("WARPLINE_EDGE_SOURCES", raising=False)
    monkeypatch.delenv("WARPLINE_LOOMWEAVE_COMMAND", raising=False)


@pytest.fixture()
def analyzed(tmp_path: Path) -> FixtureRepo:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit(dict(FILES), "shop")
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    for args in (["install", "--path", "."], ["analyze"]):
        done = subprocess.run(["loomweave", *args], cwd=repo.path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    return repo


def _edges(repo: FixtureRepo) -> dict[tuple[str, str], str]:
    conn = sqlite3.connect(store_path(repo.path))
    try:
        return {(str(a), str(b)): str(c) for a, b, c in conn.execute(
            "SELECT source, target, confidence FROM snapshot_edges")}
    finally:
        conn.close()


def test_loomweave_rust_edges_are_kept_and_completed_by_the_builtin_ones(
        analyzed: FixtureRepo) -> None:
    env = call("capture_snapshot", repo=str(analyzed.path))
    data = env["data"]
    assert data["source"] == "loomweave" and env["enrichment"]["sei"] == "present"
    shares = {s["source"]: s for s in data["edge_sources"]}
    assert set(shares) == {"loomweave", "builtin"}
    assert shares["loomweave"]["entities"] > 10 and shares["loomweave"]["edges"] > 0
    assert shares["builtin"]["edges"] > 0
    edges = _edges(analyzed)
    # loomweave's own: a free function called by its path.
    assert (f"{C}.Fixed.impl[Pricer].price", "rust:macro:shop_core.euro") in edges or \
        (f"{C}.tests.totals", f"{C}.total") in edges
    # the built-in extractor's: a method by its receiver's type, dispatch as a candidate.
    assert edges[(f"{C}.total", f"{C}.cart.Cart.impl#<>.sum")] == "resolved"
    assert edges[(f"{C}.dynamic", f"{C}.Fixed.impl[Pricer].price")] == "candidate"
    env = call("reverify", repo=str(analyzed.path), changed_refs=[f"{C}.cart.Cart.impl#<>.sum"])
    selection = env["data"]["selection"]
    assert "core/src/lib.rs::tests::totals" in selection["tests"]
    sources = {s["source"] for s in env["data"]["edge_basis"]["edge_sources"]}
    assert sources == {"loomweave", "builtin"}
