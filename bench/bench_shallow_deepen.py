"""A shallow clone deepened, then unshallowed, answers like a full clone (issue 38 item 1).

On the requests corpus: a full clone and shallow clones of depth 1 and 50, each caught up
(``warpline backfill``), deepened (``git fetch --deepen=N``), caught up, unshallowed
(``git fetch --unshallow``) and caught up again. After each step: how many commits HEAD
reaches are stored unflagged (must be 0), and, at the end, whether the ``HTTPAdapter``
timeline, the event digest and the lineage digest (``_event_digest``) equal the full
clone's. ``python bench/bench_shallow_deepen.py [--deepen N] [--depths 1,50]``; ``--origin
REPO`` clones another repository (the smoke run's generated history), ``--entity`` names
another timeline (default there: the function with the most events)."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _event_digest import _EVENTS, event_digest
from _requests_corpus import requests_bundle

ENTITY = "requests.adapters.HTTPAdapter"
_BUSIEST = ("SELECT e.locator FROM change_events ce JOIN entities e ON e.id = ce.entity_id "
            "WHERE e.locator LIKE 'python:function:%' GROUP BY e.id ORDER BY count(*) DESC, "
            "e.locator LIMIT 1")


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def _backfill(root: Path) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo", str(root)],
                   check=True, capture_output=True, text=True,
                   env={**os.environ, "WARPLINE_BACKGROUND_BACKFILL": "0"})
    return round(time.monotonic() - started, 1)


def _timeline(root: Path, entity: str) -> tuple[list[tuple[str, str, str]], bool]:
    done = subprocess.run([sys.executable, "-m", "warpline.cli", "timeline", entity,
                           "--repo", str(root), "--json", "--limit", "500"],
                          check=True, capture_output=True, text=True)
    env = json.loads(done.stdout)
    items = [(i["commit"], i["change_kind"], i["path"]) for i in env["data"]["items"]]
    return items, bool(env["data"]["ingest"]["complete"])


def _unflagged(root: Path) -> int:
    reached = set(_git(root, "rev-list", "HEAD").split())
    db = root / ".weft" / "warpline" / "warpline.db"
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT sha, reachable FROM commits").fetchall()
    return sum(1 for sha, flag in rows if sha in reached and not flag)


def _events(root: Path) -> set[str]:
    """The stored events without the digest's root term (the locator of the entity whose
    row id equals the lineage id: an id, which ``relineage.settle`` numbers differently;
    the grouping itself is ``lineage_sha256``)."""
    db = root / ".weft" / "warpline" / "warpline.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return {json.dumps([*row[:4], *row[5:-1]]) for row in conn.execute(_EVENTS)}


def _step(root: Path, name: str, entity: str) -> dict[str, Any]:
    seconds = _backfill(root)
    items, complete = _timeline(root, entity)
    return {"step": name, "backfill_s": seconds, "reached": len(_git(
        root, "rev-list", "HEAD").split()), "unflagged": _unflagged(root),
        "timeline_items": len(items), "complete": complete}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deepen", type=int, default=100)
    parser.add_argument("--depths", default="1,50")
    parser.add_argument("--origin", type=Path, help="clone this repository instead")
    parser.add_argument("--entity", help=f"the timeline compared (default {ENTITY}, or "
                                         "with --origin the busiest function)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-deepen-"))
    origin = work / "origin"
    _git(work, "clone", "-q", str(args.origin or requests_bundle()), str(origin))
    full = work / "full"
    _git(work, "clone", "-q", f"file://{origin}", str(full))
    _backfill(full)
    entity = args.entity or ENTITY
    if args.origin is not None and args.entity is None:
        with sqlite3.connect(full / ".weft" / "warpline" / "warpline.db") as conn:
            entity = str(conn.execute(_BUSIEST).fetchone()[0]).removeprefix(
                "python:function:")
    report: dict[str, Any] = {"entity": entity, "full": _step(full, "full", entity)}
    reference, _ = _timeline(full, entity)
    want = event_digest(full / ".weft" / "warpline" / "warpline.db")
    report["full"]["digest"] = want
    for depth in args.depths.split(","):
        clone = work / f"depth{depth}"
        _git(work, "clone", "-q", "--depth", depth, f"file://{origin}", str(clone))
        steps = [_step(clone, f"depth {depth}", entity)]
        _git(clone, "fetch", "-q", f"--deepen={args.deepen}")
        steps.append(_step(clone, f"deepen {args.deepen}", entity))
        _git(clone, "fetch", "-q", "--unshallow")
        steps.append(_step(clone, "unshallow", entity))
        got = event_digest(clone / ".weft" / "warpline" / "warpline.db")
        items, _ = _timeline(clone, entity)
        report[f"depth{depth}"] = {
            "steps": steps, "timeline_equal": items == reference,
            "events_equal": _events(clone) == _events(full),
            "digest_equal": got["sha256"] == want["sha256"],
            "lineage_equal": got["lineage_sha256"] == want["lineage_sha256"], "digest": got}
    subprocess.run(["rm", "-rf", str(work)], check=False)
    print(json.dumps(report, indent=1))
    ok = all(report[k]["timeline_equal"] and report[k]["lineage_equal"]
             and report[k]["events_equal"] and not any(s["unflagged"] for s in report[k]["steps"])
             for k in report if k.startswith("depth"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
