"""Edge-snapshot capture time (loomweave and built-in) and re-verify latency at depth 2 and 5.

    python bench/bench_graph.py [--modules 2000] [--no-loomweave] [--synthetic-edges 100000]

1. A generated flat repository (``_gen_flat.py``, ~2,000 modules by default): capture from
   the built-in source and, when the ``loomweave`` executable is installed, from loomweave
   (``loomweave install`` + ``loomweave analyze`` first: minutes on 2,000 modules, reported
   separately); then ``reverify HEAD~1..HEAD`` at depth 2 and 5 over the snapshot.
2. A synthetic graph of ``--synthetic-edges`` edges (default 100,000) stored as a snapshot
   of a one-commit repository: ``reverify`` at depth 5 from 10 seeds. Target: under 1 s
   cold (a CLI call, or loomweave's per-call spawn, always builds the graph).

"cold" is the first query in a process (the snapshot's graph is read and built); "warm" is
the median of the next ones (the long-lived MCP server keeps built graphs per snapshot).
Nothing is asserted; results go to stdout and bench/out/graph-<time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pygit2
from _bench_util import python_blobs
from _gen_flat import generate

from warpline.git.repo import head_commit, open_repo
from warpline.graph.builtin import capture_builtin
from warpline.graph.loomweave_source import capture_from_loomweave
from warpline.graph.model import EdgeCapture, GraphEdge, GraphEntity
from warpline.ingest.driver import Ingestor
from warpline.registry import call_tool
from warpline.service.impact.snapshot import snapshot_data
from warpline.store import snapshots
from warpline.store.db import Store


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def reverify_latency(repo: Path, arguments: dict[str, Any], repeat: int = 5) -> dict[str, Any]:
    snapshots._GRAPHS.clear()  # cold: the graph is read and built in this call
    cold, env = timed(lambda: call_tool("reverify", {"repo": str(repo), **arguments}))
    warm = [timed(lambda: call_tool("reverify", {"repo": str(repo), **arguments}))[0]
            for _ in range(repeat)]
    data = env["data"]
    return {"cold_s": round(cold, 3), "warm_s": round(statistics.median(warm), 3),
            "items": data["total"], "completeness": data["completeness"],
            "tests_command": bool(env["next_actions"].get("commands"))}


def loomweave_index(repo: Path) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="bench-home-"))
    env = {**os.environ, "HOME": str(home), "LOOMWEAVE_PYTHON_INTERPRETER": sys.executable}
    out: dict[str, Any] = {}
    for step in (["install", "--path", "."], ["analyze"]):
        seconds, done = timed(lambda s=step: subprocess.run(  # type: ignore[misc]
            ["loomweave", *s], cwd=repo, env=env, capture_output=True, text=True))
        if done.returncode != 0:
            raise RuntimeError(f"loomweave {step[0]} failed: {done.stderr[-500:]}")
        out[f"{step[0]}_s"] = round(seconds, 1)
    shutil.rmtree(home, ignore_errors=True)
    return out


def bench_repository(root: Path, modules: int, use_loomweave: bool) -> dict[str, Any]:
    repo_path = root / "flat"
    if (repo_path / ".git").is_dir():  # a kept --workdir: reuse it (and its loomweave index)
        shutil.rmtree(repo_path / ".weft" / "warpline", ignore_errors=True)
        seconds, head = 0.0, str(open_repo(repo_path).head.target)
    else:
        seconds, head = timed(lambda: generate(repo_path, modules=modules))
    result: dict[str, Any] = {"modules": modules, "generate_s": round(seconds, 1), "head": head}
    repo = open_repo(repo_path)
    commit = head_commit(repo)
    assert commit is not None
    with Store.open(repo_path) as store:
        seconds, _ = timed(lambda: Ingestor(store, repo).catch_up(commit))
        result["ingest_s"] = round(seconds, 1)
    seconds, capture = timed(lambda: capture_builtin(repo, commit))
    result["builtin"] = {"extract_s": round(seconds, 2), "entities": len(capture.entities),
                         "edges": len(capture.edges),
                         "python_bytes": sum(b.size for b in python_blobs(commit))}
    os.environ["WARPLINE_EDGE_SOURCES"] = "builtin"
    seconds, env = timed(lambda: call_tool("capture_snapshot", {"repo": str(repo_path)}))
    result["builtin"]["capture_tool_s"] = round(seconds, 2)
    for depth in (2, 5):
        result["builtin"][f"reverify_depth{depth}"] = reverify_latency(
            repo_path, {"rev_range": "HEAD~1..HEAD", "depth": depth})
    if use_loomweave and shutil.which("loomweave"):
        analyzed = (repo_path / ".weft" / "loomweave" / "loomweave.db").is_file()
        result["loomweave"] = {"reused_index": True} if analyzed else loomweave_index(repo_path)
        seconds, lw = timed(lambda: capture_from_loomweave(repo_path))
        result["loomweave"].update({"read_index_s": round(seconds, 2),
                                    "entities": len(lw.entities), "edges": len(lw.edges)})
        os.environ["WARPLINE_EDGE_SOURCES"] = "loomweave,builtin"
        seconds, env = timed(lambda: call_tool("capture_snapshot", {"repo": str(repo_path)}))
        assert env["data"]["source"] == "loomweave", env["warnings"]
        result["loomweave"]["capture_tool_s"] = round(seconds, 2)
        for depth in (2, 5):
            result["loomweave"][f"reverify_depth{depth}"] = reverify_latency(
                repo_path, {"rev_range": "HEAD~1..HEAD", "depth": depth})
    os.environ.pop("WARPLINE_EDGE_SOURCES", None)
    return result


def bench_synthetic(root: Path, edges: int, seed: int = 0) -> dict[str, Any]:
    """A random graph of ``edges`` call edges over ``edges // 5`` functions (10% tests)."""
    rng = random.Random(seed)
    nodes = max(edges // 5, 10)
    names = [f"python:function:synth.m{i // 50:04d}.f{i}" for i in range(nodes)]
    paths = [f"synth/m{i // 50:04d}.py" for i in range(nodes)]
    for i in range(0, nodes, 10):  # every tenth function is a test
        names[i] = f"python:function:tests.test_m{i // 50:04d}.test_{i}"
        paths[i] = f"tests/test_m{i // 50:04d}.py"
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < edges:
        a, b = rng.randrange(nodes), rng.randrange(nodes)
        if a != b:
            pairs.add((a, b))
    capture = EdgeCapture(
        source="builtin", source_version="synthetic",
        entities=tuple(GraphEntity(n, "function", p, None, 1, 2)
                       for n, p in zip(names, paths, strict=True)),
        edges=tuple(GraphEdge(names[a], names[b], "calls", "resolved")
                    for a, b in sorted(pairs)))
    repo_path = root / "synthetic"
    repo = pygit2.init_repository(str(repo_path), bare=False, initial_head="main")
    sig = pygit2.Signature("Bench", "bench@example.com", 1_750_000_000, 0)
    index = pygit2.Index()
    index.add(pygit2.IndexEntry("README.md", repo.create_blob(b"synthetic\n"),
                                pygit2.enums.FileMode.BLOB))
    sha = str(repo.create_commit("refs/heads/main", sig, sig, "one",
                                 index.write_tree(repo), []))
    with Store.open(repo_path) as store:
        new = snapshots.NewSnapshot(sha, "builtin", "synthetic", "full", "FULL",
                                          int(time.time()), capture, ())
        seconds, _ = timed(lambda: snapshots.write_snapshot(
            store, new, lambda sid: snapshot_data(new, sid, "created")))
    seeds = [names[i] for i in rng.sample(range(1, nodes), 10)]
    out: dict[str, Any] = {"nodes": nodes, "edges": edges, "store_write_s": round(seconds, 2)}
    for depth in (2, 5):
        out[f"reverify_depth{depth}"] = reverify_latency(
            repo_path, {"changed_refs": seeds, "depth": depth})
    return out


def report(result: dict[str, Any]) -> list[str]:
    lines = []
    repo = result["repository"]
    lines.append(f"generated repository: {repo['modules']} modules (generate {repo['generate_s']}"
                 f" s, ingest {repo['ingest_s']} s)")
    for source in ("builtin", "loomweave"):
        part = repo.get(source)
        if not part:
            lines.append(f"  {source:<9} not measured (executable missing or --no-loomweave)")
            continue
        extract = part.get("extract_s", part.get("read_index_s"))
        extra = (f"; install {part['install_s']} s + analyze {part['analyze_s']} s"
                 if "analyze_s" in part else "; index reused" if "reused_index" in part
                 else "")
        lines.append(f"  {source:<9} graph {part['entities']} entities / {part['edges']} edges;"
                     f" read {extract} s, capture tool {part['capture_tool_s']} s{extra}")
        for depth in (2, 5):
            r = part[f"reverify_depth{depth}"]
            lines.append(f"    reverify depth {depth}: {r['items']} items, cold {r['cold_s']} s,"
                         f" warm {r['warm_s']} s")
    syn = result.get("synthetic")
    if syn:
        lines.append(f"synthetic graph: {syn['nodes']} nodes / {syn['edges']} edges "
                     f"(stored in {syn['store_write_s']} s)")
        for depth in (2, 5):
            r = syn[f"reverify_depth{depth}"]
            verdict = "PASS" if r["cold_s"] < 1 else "MISS"
            lines.append(f"  reverify depth {depth}: {r['items']} items, cold {r['cold_s']} s, "
                         f"warm {r['warm_s']} s" +
                         (f"   target < 1 s (cold): {verdict}" if depth == 5 else ""))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--modules", type=int, default=2000)
    parser.add_argument("--synthetic-edges", type=int, default=100_000)
    parser.add_argument("--no-loomweave", action="store_true")
    parser.add_argument("--workdir", help="keep the generated repositories here (a kept "
                        "repository and its loomweave index are reused by the next run)")
    args = parser.parse_args(argv)
    os.environ.setdefault("WARPLINE_AUTO_CAPTURE_BUDGET_S", "0")
    root = Path(args.workdir or tempfile.mkdtemp(prefix="bench-graph-"))
    root.mkdir(parents=True, exist_ok=True)
    result = {"repository": bench_repository(root, args.modules, not args.no_loomweave),
              "synthetic": bench_synthetic(root, args.synthetic_edges)}
    print("\n".join(report(result)))
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    (out / f"graph-{stamp}.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    if not args.workdir:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
