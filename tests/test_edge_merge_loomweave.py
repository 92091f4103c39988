"""Capture merges loomweave with the built-in extractor, over the real loomweave.

loomweave gives the SEIs; the built-in extractor adds the edges loomweave lacks (fixtures,
registered callbacks). Without ``node`` loomweave resolves no calls at all: the snapshot
must still trace dependents (the built-in edges), and say which source gave what.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from tests.graphfixture import call
from tests.staticfixture import ADD, CHECK_NORM, DISPATCH, FIXTURE_POINT, make_static_repo
from warpline.store.db import store_path

pytestmark = [
    pytest.mark.loomweave,
    pytest.mark.skipif(shutil.which("loomweave") is None, reason="loomweave is not installed"),
]


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    monkeypatch.delenv("WARPLINE_EDGE_SOURCES", raising=False)
    monkeypatch.delenv("WARPLINE_LOOMWEAVE_COMMAND", raising=False)


def _path_without_node(root: Path) -> str:
    """The current PATH with node really absent: a directory holding node is replaced by a
    directory of links to its other executables; every other directory stays itself (tools
    such as loomweave find their plugins beside their own real location)."""
    entries = []
    for index, directory in enumerate(os.environ.get("PATH", "").split(os.pathsep)):
        if not os.path.isdir(directory):
            continue
        names = os.listdir(directory)
        if "node" not in names and "nodejs" not in names:
            entries.append(directory)
            continue
        farm = root / f"bin-without-node-{index}"
        farm.mkdir()
        for name in names:
            source = Path(directory) / name
            if name in ("node", "nodejs") or not source.is_file() \
                    or not os.access(source, os.X_OK):
                continue
            (farm / name).symlink_to(source)
        entries.append(str(farm))
    return os.pathsep.join(entries)


def _analyzed(root: Path, *, without_node: bool) -> FixtureRepo:
    repo = make_static_repo(root / "repo")
    home = root / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "LOOMWEAVE_PYTHON_INTERPRETER": sys.executable}
    if without_node:
        env["PATH"] = _path_without_node(root)
        assert shutil.which("node", path=env["PATH"]) is None
    for args in (["install", "--path", "."], ["analyze"]):
        done = subprocess.run(["loomweave", *args], cwd=repo.path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    return repo


def _edges(repo: FixtureRepo) -> set[tuple[str, str]]:
    conn = sqlite3.connect(store_path(repo.path))
    try:
        return {(str(a), str(b)) for a, b in conn.execute(
            "SELECT source, target FROM snapshot_edges")}
    finally:
        conn.close()


@pytest.mark.parametrize("without_node", [False, True], ids=["with-node", "without-node"])
def test_capture_keeps_loomweave_seis_and_adds_the_builtin_edges_it_lacks(
        tmp_path: Path, without_node: bool) -> None:
    repo = _analyzed(tmp_path, without_node=without_node)
    env = call("capture_snapshot", repo=str(repo.path))
    data = env["data"]
    assert data["source"] == "loomweave" and env["enrichment"]["sei"] == "present"
    shares = {s["source"]: s for s in data["edge_sources"]}
    assert set(shares) == {"loomweave", "builtin"}
    assert shares["builtin"]["edges"] > 0
    assert shares["loomweave"]["edges"] + shares["builtin"]["edges"] == data["edges"]
    if without_node:
        assert shares["loomweave"]["edges"] == 0
    # A fixture and a registered callback: only the built-in extractor knows those.
    assert {(CHECK_NORM, FIXTURE_POINT), (DISPATCH, ADD)} <= _edges(repo)
    assert data["completeness"] == "FULL"
    env = call("reverify", repo=str(repo.path), changed_refs=[ADD])
    items = {i["entity"]["locator"]: i for i in env["data"]["items"]}
    assert [s["command"] for s in items[ADD]["suggested_verification"]] == [
        "pytest checks/check_model.py::CheckChild::check_add"]
    sources = {s["source"] for s in env["data"]["edge_basis"]["edge_sources"]}
    assert sources == {"loomweave", "builtin"}
