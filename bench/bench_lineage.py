"""Lineage check on real histories: which remove+add pairs became ``moved``, and the cost.

    python bench/bench_lineage.py REPO [REPO ...] [--sample 20] [--scores]
        [--before-src DIR] [--repeat 1] [--max-commits N]

For every repository, in the same run:

1. **Pairing**: every non-merge commit reachable from HEAD is attributed in-process
   (``commit_changes``, one shared cache) and its events counted: definitions paired into
   ``moved`` (renamed in place, moved to another file, carried by a renamed class), the
   ``removed``/``added`` definitions left, and how many moved ones are ``also_modified``.
   A random sample of pairs (fixed seed) is printed for reading.
2. **Scores** (``--scores``): the similarity thresholds are lowered to 0.3 and every scored
   candidate pair is recorded; the distribution of each removed definition's best score is
   printed, separately for same-name and renamed candidates, so the thresholds in
   ``warpline/git/lineage.py`` can be checked against real histories.
3. **Backfill time**: a full ``warpline backfill`` (in-process walker,
   ``WARPLINE_INGEST_WORKERS=0``) into a fresh store of a local clone, beside the lower
   bound ``git log --numstat`` measured in the same run; with ``--before-src`` the same
   backfill with that source tree of warpline first on ``PYTHONPATH`` (an older build),
   interleaved with the current one, so after/before is measured on the same machine in
   the same run. Wall and CPU (user+sys of the child) are both reported: on a shared
   machine the CPU figure is the steadier one.

Nothing is asserted; numbers are printed (and written as JSON to ``bench/out/``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pygit2
from _bench_util import clone, git_log_numstat, head_sha

from warpline.git import lineage
from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.repo import head_commit, open_repo

_BUCKETS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _pairing(path: Path, max_commits: int | None, sample: int) -> dict[str, Any]:
    repo = open_repo(path)
    head = head_commit(repo)
    assert head is not None
    walker = repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    cache = DefinitionCache()
    counts: Counter[str] = Counter()
    pairs: list[dict[str, Any]] = []
    for index, commit in enumerate(walker):
        if max_commits is not None and index >= max_commits:
            break
        if len(commit.parent_ids) > 1:
            continue
        changes = commit_changes(repo, commit, cache)
        counts["commits"] += 1
        for limit in changes.limits_hit:
            counts[f"limit:{limit}"] += 1
        file_moves = {(c.previous_path, c.path) for c in changes.changes
                      if c.kind == "file" and c.change_kind == "moved"}
        for c in changes.changes:
            if c.kind not in ("class", "function"):
                continue
            counts[c.change_kind] += 1
            if c.change_kind != "moved" or c.previous_locator is None:
                continue
            old_q = c.previous_locator.rsplit(":", 1)[-1]
            new_q = c.locator.rsplit(":", 1)[-1]
            if (c.previous_path, c.path) in file_moves and c.previous_path != c.path and (
                    old_q.split(".")[-1] == new_q.split(".")[-1]):
                counts["moved with its file (git rename)"] += 1
                continue
            if c.previous_locator == c.locator:
                counts["moved with its file (git rename)"] += 1
                continue
            how = ("renamed in place" if c.previous_path == c.path else
                   "moved to another file")
            kept = old_q.split(".")[-1] == new_q.split(".")[-1]
            counts["paired (remove+add -> moved)"] += 1
            counts[f"paired: {how}"] += 1
            counts["paired: kept its name" if kept else "paired: renamed"] += 1
            counts["paired and also_modified"] += int(c.also_modified)
            pairs.append({"commit": str(commit.id)[:12], "from": c.previous_locator,
                          "to": c.locator, "also_modified": c.also_modified, "how": how})
    rng = random.Random(0)
    shown = rng.sample(pairs, min(sample, len(pairs)))
    return {"counts": dict(sorted(counts.items())), "sample": shown}


def _scores(path: Path, max_commits: int | None) -> dict[str, Any]:
    """Best score per removed definition, with the thresholds lowered to see below them."""
    saved = lineage.SAME_NAME_MIN, lineage.RENAME_MIN, lineage.TRACE
    lineage.SAME_NAME_MIN = lineage.RENAME_MIN = 0.3
    lineage.TRACE = []
    try:
        _pairing(path, max_commits, 0)
        trace = lineage.TRACE
    finally:
        lineage.SAME_NAME_MIN, lineage.RENAME_MIN, lineage.TRACE = saved
    best: dict[tuple[str, bool], tuple[float, str]] = {}
    for value, old, new, same in trace:
        key = (old, same)
        if value > best.get(key, (-1.0, ""))[0]:
            best[key] = (value, new)
    out: dict[str, Any] = {}
    for same in (True, False):
        values = [v for (_, s), (v, _) in best.items() if s is same]
        hist = {f">={b}": sum(1 for v in values if v >= b) for b in _BUCKETS}
        label = "same name" if same else "renamed"
        out[label] = {"candidates": len(values), "best_score_at_least": hist}
        # Borderline examples around the thresholds, for reading.
        band = sorted(((v, o, n) for (o, s), (v, n) in best.items()
                       if s is same and 0.4 <= v < 0.85), reverse=True)
        out[label]["borderline"] = [f"{v:.2f} {o} -> {n}" for v, o, n in band[:: max(
            len(band) // 12, 1)][:12]]
    return out


def _backfill(src: Path, head: str, tmp: Path, name: str,
              pythonpath: str | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+sys) of one fresh backfill process."""
    dest = clone(src, tmp / name, head)
    env = dict(os.environ, WARPLINE_INGEST_WORKERS="0")
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    argv = [sys.executable, "-m", "warpline.cli", "backfill", "--repo", str(dest)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"backfill failed: {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--scores", action="store_true")
    parser.add_argument("--before-src", type=Path, default=None,
                        help="a source tree of an older warpline, for the before timing")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--max-commits", type=int, default=None)
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()
    results: list[dict[str, Any]] = []
    for path in args.repos:
        result: dict[str, Any] = {"repo": path.name}
        result["pairing"] = _pairing(path, args.max_commits, args.sample)
        print(f"== {path.name}: pairing")
        for key, value in result["pairing"]["counts"].items():
            print(f"  {key:32} {value}")
        print("  sample:")
        for pair in result["pairing"]["sample"]:
            flag = " (also modified)" if pair["also_modified"] else ""
            print(f"    {pair['commit']} {pair['from']} -> {pair['to']}{flag}")
        if args.scores:
            result["scores"] = _scores(path, args.max_commits)
            print(json.dumps(result["scores"], indent=2))
        if not args.no_timing:
            head = head_sha(path)
            with tempfile.TemporaryDirectory() as tmp_name:
                tmp = Path(tmp_name)
                bound = git_log_numstat(path, args.repeat)
                timing: dict[str, Any] = {"git_log_numstat_s": round(bound, 2)}
                for attempt in range(args.repeat):  # interleaved: drift hits both alike
                    runs: list[tuple[str, str | None]] = [("after", None)]
                    if args.before_src is not None:
                        runs.insert(0, ("before", str(args.before_src)))
                    for label, pythonpath in runs:
                        seconds, cpu = _backfill(path, head, tmp, f"{label}{attempt}",
                                                 pythonpath)
                        timing.setdefault(f"{label}_s", []).append(round(seconds, 2))
                        timing.setdefault(f"{label}_cpu_s", []).append(round(cpu, 2))
                for label in ("before", "after"):
                    if f"{label}_s" in timing:
                        timing[f"{label}_ratio_to_git_log"] = round(
                            min(timing[f"{label}_s"]) / bound, 2)
                if "before_s" in timing:
                    timing["after_over_before_wall"] = round(
                        min(timing["after_s"]) / min(timing["before_s"]), 3)
                    timing["after_over_before_cpu"] = round(
                        min(timing["after_cpu_s"]) / min(timing["before_cpu_s"]), 3)
            result["timing"] = timing
            print(f"== {path.name}: backfill {json.dumps(timing)}")
        results.append(result)
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_lineage.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
