"""``filters.paths`` cost: ``warpline_change_list`` over a whole history with 1..1,000 paths.

```sh
warpline backfill --repo /tmp/requests      # once
python bench/bench_filters.py /tmp/requests [--counts 1,100,300,1000]
```

Each figure is one in-process call (store already caught up) through the service, the way
the MCP server answers it, beside the same call without a path filter (the lower bound).
The paths are the history's own distinct event paths (so every prefix matches something),
padded with names that match nothing, up to the count asked; ``--miss``: only names that
match nothing (the worst case: no prefix ends a row's search early).
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from warpline.models.inputs import ChangeListInput
from warpline.service.history.changed import change_list


def _paths(repo: Path, count: int, miss: bool) -> list[str]:
    db = repo / ".weft" / "warpline" / "warpline.db"
    with sqlite3.connect(db) as conn:
        real = [r[0] for r in conn.execute(
            "SELECT DISTINCT path FROM change_events ORDER BY path")]
    dirs = sorted({p.rsplit("/", 1)[0] for p in real if "/" in p})
    # Misses are the worst case: no prefix ends the per-row search early.
    pool = [] if miss else dirs + real
    out = pool[:count]
    out += [f"nowhere/{i}" for i in range(count - len(out))]
    return out


def _call(repo: Path, paths: list[str] | None) -> tuple[float, int]:
    args: dict[str, object] = {"repo": str(repo), "limit": 50}
    if paths:
        args["filters"] = {"paths": paths}
    params = ChangeListInput.model_validate(args)
    start = time.perf_counter()
    answer = change_list(params, None)
    return time.perf_counter() - start, int(answer["data"]["total"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", type=Path)
    ap.add_argument("--counts", default="1,100,300,1000")
    ap.add_argument("--miss", action="store_true", help="paths that match nothing")
    args = ap.parse_args()
    # The store, caught up to HEAD (a no-op when it is): _paths reads its event paths.
    subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                    str(args.repo)], check=True, capture_output=True)
    _call(args.repo, None)  # warm: page cache
    base, total = _call(args.repo, None)
    print(f"no path filter: {base:.3f} s ({total} events)")
    for count in (int(c) for c in args.counts.split(",")):
        seconds, matched = _call(args.repo, _paths(args.repo, count, args.miss))
        print(f"{count:5d} paths: {seconds:7.3f} s ({matched} events, "
              f"{seconds / base:.1f}x the unfiltered call)")


if __name__ == "__main__":
    main()
