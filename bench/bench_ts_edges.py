"""TypeScript/JavaScript built-in edges against the TypeScript compiler's resolved symbols
(issue 37 item 1).

    python bench/bench_ts_edges.py REPO [REPO ...] [--sample 8]
    python bench/bench_ts_edges.py --tiny      # a tiny built history (the smoke)

For each repository's HEAD (a checked-out clone): warpline's built-in capture
(``capture_builtin``: the TS/JS extractor, ``graph/builtin/script*.py``) and the
compiler's edges (``ts_edges_truth.js``: each identifier inside a definition resolved by
the type checker to the declaration it names). Compared: call and reference edges between
definitions (both ends a function, method or class of the repository; a module or file
at either end left out), as ``(source, target)`` pairs, and per kind. warpline's
candidate edges (a method call on a value of unknown type) are scored apart: precision
and recall of the resolved edges alone, then with the candidates. Printed with samples
of each disagreement's category; written to ``bench/out/bench_ts_edges.json``. Also the
capture's CPU time (``capture-snapshot``'s cost for the edges).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pygit2

from warpline.graph.builtin import capture_builtin
from warpline.lang import language_of

BENCH = Path(__file__).resolve().parent
NODE_DIR = BENCH / "out" / "node"

Pair = tuple[str, str]


def _definition(locator: str) -> bool:
    return locator.startswith("ts:") and not locator.startswith("ts:module:")


def truth(repo: Path) -> set[tuple[str, str, str]]:
    files = [f for f in subprocess.run(["git", "-C", str(repo), "ls-files"],
                                       capture_output=True, text=True,
                                       check=True).stdout.splitlines()
             if (lang := language_of(f)) is not None and lang.prefix == "ts"
             and "node_modules/" not in f and (repo / f).is_file()]
    env = {**os.environ, "NODE_PATH": str(NODE_DIR / "node_modules")}
    done = subprocess.run(["node", "--max-old-space-size=2048", str(BENCH / "ts_edges_truth.js")],
                          input=json.dumps({"root": str(repo), "files": files}),
                          capture_output=True, text=True, check=True, env=env)
    out: set[tuple[str, str, str]] = set()
    for line in done.stdout.splitlines():
        if line.strip():
            source, target, kind = json.loads(line)
            out.add((source, target, kind))
    return out


def _category(pair: Pair, kinds: dict[Pair, str], other_targets: dict[str, set[str]],
              known: set[str], candidate: bool) -> str:
    source, target = pair
    if candidate:
        return "a candidate edge (method call on a value of unknown type)"
    if target not in known:
        return "target not a warpline entity (naming differs)"
    if source not in known:
        return "source not a warpline entity (naming differs)"
    if target.rpartition(".")[2] in {t.rpartition(".")[2] for t in other_targets.get(source, ())}:
        return f"{kinds.get(pair, '?')}: same name, other definition"
    return f"{kinds.get(pair, '?')}: not found by the other side"


def score(repo_path: Path, sample: int) -> dict[str, Any]:
    repo = pygit2.Repository(str(repo_path))
    commit = repo.head.peel(pygit2.Commit)
    started = time.process_time()
    capture = capture_builtin(repo, commit)
    cpu = time.process_time() - started
    known = {e.locator for e in capture.entities}
    mine: dict[Pair, str] = {}
    mine_kind: dict[Pair, str] = {}
    for edge in capture.edges:
        if _definition(edge.source_locator) and _definition(edge.target_locator):
            pair = (edge.source_locator, edge.target_locator)
            if mine.get(pair) != "resolved":
                mine[pair] = edge.confidence or "resolved"
            mine_kind.setdefault(pair, edge.kind)
    started = time.perf_counter()
    theirs_all = truth(repo_path)
    truth_seconds = time.perf_counter() - started
    theirs: dict[Pair, str] = {}
    for source, target, kind in theirs_all:
        if _definition(source) and _definition(target):
            theirs.setdefault((source, target), kind)
            if kind == "calls":
                theirs[(source, target)] = kind
    resolved = {p for p, c in mine.items() if c == "resolved"}
    every = set(mine)
    truth_pairs = set(theirs)

    def pr(ours: set[Pair], wanted: set[Pair]) -> dict[str, float]:
        both = ours & wanted
        return {"precision": round(len(both) / max(len(ours), 1), 4),
                "recall": round(len(both) / max(len(wanted), 1), 4),
                "ours": len(ours), "truth": len(wanted), "agree": len(both)}

    by_kind = {}
    for kind in ("calls", "references"):
        want = {p for p, k in theirs.items() if k == kind}
        ours = {p for p in resolved if mine_kind[p] == kind}
        by_kind[kind] = pr(ours, want)
    targets_of: dict[str, set[str]] = defaultdict(set)
    for s, t in truth_pairs:
        targets_of[s].add(t)
    mine_targets: dict[str, set[str]] = defaultdict(set)
    for s, t in every:
        mine_targets[s].add(t)
    truth_known = {p[0] for p in truth_pairs} | {p[1] for p in truth_pairs}
    categories: dict[str, list[Pair]] = defaultdict(list)
    for pair in sorted(every - truth_pairs):
        categories["warpline only: " + _category(pair, mine_kind, targets_of, truth_known
                                                 | known, mine[pair] == "candidate")
                   ].append(pair)
    for pair in sorted(truth_pairs - every):
        categories["truth only: " + _category(pair, theirs, mine_targets, known, False)
                   ].append(pair)
    rng = random.Random(0)
    return {
        "repo": repo_path.name, "commit": str(commit.id)[:12],
        "entities": len(capture.entities), "edges": len(capture.edges),
        "candidate_edges": sum(1 for e in capture.edges if e.confidence == "candidate"),
        "unresolved_calls": capture.unresolved, "capture_cpu_seconds": round(cpu, 2),
        "truth_seconds": round(truth_seconds, 1),
        "resolved": pr(resolved, truth_pairs), "with_candidates": pr(every, truth_pairs),
        "by_kind": by_kind,
        "disagreements": {name: {"count": len(pairs), "sample": [
            f"{s} -> {t}" for s, t in rng.sample(pairs, min(sample, len(pairs)))],
            "all": [f"{s} -> {t}" for s, t in pairs]}
            for name, pairs in sorted(categories.items(), key=lambda kv: -len(kv[1]))},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*", type=Path)
    parser.add_argument("--sample", type=int, default=8)
    parser.add_argument("--tiny", action="store_true", help="score a tiny built history")
    args = parser.parse_args()
    from _ts_truth import missing

    skipped = missing()
    if skipped is not None:
        print(f"skipped: {skipped}")
        return 0
    repos = list(args.repos)
    tiny = None
    if args.tiny:
        from _lang_tiny import build

        tiny = tempfile.TemporaryDirectory(prefix="ts-edges-tiny-")
        repos.append(build(Path(tiny.name) / "demo"))
    if not repos:
        parser.error("name a repository or --tiny")
    results = []
    for path in repos:
        result = score(path, args.sample)
        results.append(result)
        print(f"== {result['repo']} @ {result['commit']}: {result['entities']} entities, "
              f"{result['edges']} edges ({result['candidate_edges']} candidates, "
              f"{result['unresolved_calls']} calls unresolved); capture "
              f"{result['capture_cpu_seconds']} s CPU; truth {result['truth_seconds']} s")
        print(f"   resolved:        {result['resolved']}")
        print(f"   with candidates: {result['with_candidates']}")
        for kind, figures in result["by_kind"].items():
            print(f"   {kind:16} {figures}")
        for name, info in result["disagreements"].items():
            print(f"   {info['count']:5}  {name}")
            info = {k: v for k, v in info.items() if k != "all"}
            for line in info["sample"]:
                print(f"            {line}")
    if tiny is not None:
        tiny.cleanup()
        return 0
    out = BENCH / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_ts_edges.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
