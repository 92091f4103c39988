"""Function histories against the truth in ``bench/lineage_truth.json``.

    python bench/bench_history_truth.py CORPUS [CORPUS ...] [--workdir DIR] [--truth FILE]

Each corpus (a clone of ``requests`` or ``pip``, or with ``--truth
bench/lineage_truth_lang.json`` of ``ripgrep``, ``cobra`` or ``junit4``: Rust, Go and Java
histories built by ``bench/_history_truth_lang.py``; named by its directory) is cloned into a
temporary directory (or ``--workdir``, kept and reused) and backfilled (``warpline
backfill``); then, for every function of the truth on that corpus, warpline's
``timeline`` (every page) and ``churn`` of the function's current locator are compared
with the truth's commits (``--truth FILE``, default ``bench/lineage_truth.json``: the
commits that introduced, changed, renamed or moved it; built by
``bench/_history_truth_build.py`` without warpline's code):

* **exact**: the timeline's commits are the truth's commits, no more, no fewer;
* **commit recall / precision** over all functions (micro-averaged);
* **churn**: ``churn_count`` against the number of truth commits;
* every miss and every extra commit is printed with its subject, for reading.

Commits the truth marks ``unreadable`` (a side no parser of the truth reads) are left out
of both. Merge commits are in neither (the truth leaves them out; a timeline event on a
merge is printed as extra). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _bench_util import clone, head_sha

from warpline.registry import call_tool

TRUTH = Path(__file__).resolve().parent / "lineage_truth.json"


def _timeline(repo: Path, locator: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        args: dict[str, Any] = {"repo": str(repo), "entity": locator, "sort_order": "asc",
                                "limit": 200}
        if cursor:
            args["cursor"] = cursor
        env = call_tool("timeline", args)
        items.extend(env["data"]["items"])
        cursor = env["data"]["page"].get("next_cursor")
        if not env["data"]["page"].get("has_more") or not cursor:
            return items


def _subject(repo: Path, sha: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%s", sha],
                          capture_output=True, text=True, check=False).stdout.strip()[:70]


def score(repo: Path, functions: list[dict[str, Any]]) -> dict[str, Any]:
    exact = 0
    hits = truth_total = ours_total = 0
    rows = []
    for function in functions:
        unknown = {e["commit"] for e in function["events"] if e["kind"] == "unreadable"}
        truth = {e["commit"]: e["kind"] for e in function["events"]
                 if e["kind"] != "unreadable"}
        items = _timeline(repo, function["locator"])
        ours = {i["commit"]: i["change_kind"] for i in items
                if i["commit"] not in unknown and not i.get("nested")}
        churn = call_tool("churn", {"repo": str(repo), "entity_refs": [function["locator"]]})
        count = churn["data"]["items"][0]["churn_count"]
        both = truth.keys() & ours.keys()
        hits += len(both)
        truth_total += len(truth)
        ours_total += len(ours)
        is_exact = truth.keys() == ours.keys()
        exact += is_exact
        rows.append({
            "locator": function["locator"], "truth": len(truth), "timeline": len(ours),
            "churn": count, "exact": is_exact,
            "kinds_differ": sorted(f"{c[:12]} truth {truth[c]} timeline {ours[c]}"
                                   for c in both if truth[c] != ours[c]),
            "missed": [f"{c[:12]} {truth[c]} {_subject(repo, c)}"
                       for c in truth if c not in ours],
            "extra": [f"{c[:12]} {ours[c]} {_subject(repo, c)}"
                      for c in ours if c not in truth],
        })
    return {"functions": len(functions), "exact": exact,
            "commit_recall": round(hits / max(truth_total, 1), 4),
            "commit_precision": round(hits / max(ours_total, 1), 4), "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--workdir", type=Path, default=None,
                        help="keep the backfilled clones here (reused when present)")
    parser.add_argument("--truth", type=Path, default=TRUTH,
                        help="the truth file scored against (default: %(default)s)")
    args = parser.parse_args()
    truth = json.loads(args.truth.read_text())["functions"]
    results = []
    with tempfile.TemporaryDirectory() as tmp_name:
        base = args.workdir or Path(tmp_name)
        for corpus in args.corpora:
            functions = [f for f in truth if f["corpus"] == corpus.name]
            dest = base / corpus.name
            if not dest.exists():
                clone(corpus, dest, head_sha(corpus))
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                            str(dest)], check=True, capture_output=True,
                           env=dict(os.environ, WARPLINE_INGEST_WORKERS="0"))
            backfill_s = round(time.perf_counter() - started, 1)
            result = {"corpus": corpus.name, "backfill_s": backfill_s,
                      **score(dest, functions)}
            results.append(result)
            print(f"== {corpus.name}: {result['exact']} of {result['functions']} histories "
                  f"exact; commit recall {result['commit_recall']}, precision "
                  f"{result['commit_precision']} (backfill {backfill_s} s)")
            for row in result["rows"]:
                flag = "exact" if row["exact"] else "DIFFERS"
                print(f"  {flag:7} {row['locator']}: truth {row['truth']}, timeline "
                      f"{row['timeline']}, churn {row['churn']}")
                for key in ("missed", "extra", "kinds_differ"):
                    for line in row[key]:
                        print(f"          {key}: {line}")
    total = sum(r["functions"] for r in results)
    print(f"== all: {sum(r['exact'] for r in results)} of {total} exact")
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_history_truth.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
