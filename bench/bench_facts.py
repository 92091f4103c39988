"""Facts on demand against the facts a backfill stored while walking (issue 36 item 1).

    python bench/bench_facts.py REPO --reference OLD.db [--reference OTHER.db ...]
    python bench/bench_facts.py --compare A.db B.db

A fresh local clone of REPO is backfilled by this build (events only), then the facts of
every pending event are read on demand (``warpline.ingest.facts.fill``: whole versions,
one parse per version), timed, with the parse cache's reuse rate. Every event's facts
(``code_same``, ``docs_changed``, ``signature_changed``) are then compared, event by
event (commit sha, locator, change kind), with each reference store: a store an earlier
build filled while walking (``git archive OLD | tar -x``, that tree on ``PYTHONPATH``,
a backfill). Printed: events compared, agreeing, disagreeing by category (the reference
unknown, this build unknown, both known and different, per fact), and samples.
``--compare`` compares two stores' facts without backfilling (two worker counts of one
build, say); ``--check-derived`` compares the facts read with derived versions (a file
edited in place read again in its edited regions only) against every version read
whole. JSON goes to bench/out/.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_util import clone, head_sha, write_report

Key = tuple[str, str, str]
Facts = tuple[Any, Any, Any]

_FACTS = """
SELECT c.sha, e.locator, ce.change_kind, ce.code_same, ce.docs_changed, ce.signature_changed
FROM change_events ce JOIN commits c ON c.id = ce.commit_id
JOIN entities e ON e.id = ce.entity_id
WHERE e.kind != 'file' AND ce.change_kind IN ('modified', 'moved')
"""
_NAMES = ("code_same", "docs_changed", "signature_changed")


def read_facts(db: Path) -> dict[Key, Facts]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {(str(r[0]), str(r[1]), str(r[2])): (r[3], r[4], r[5])
                for r in conn.execute(_FACTS)}
    finally:
        conn.close()


def compare(new: dict[Key, Facts], old: dict[Key, Facts], samples: int = 8
            ) -> dict[str, Any]:
    """Per-event agreement of two stores' facts, over the events both hold."""
    both = new.keys() & old.keys()
    kinds: Counter[str] = Counter()
    shown: dict[str, list[str]] = {}
    for key in sorted(both):
        a, b = new[key], old[key]
        if a == b:
            kinds["agree"] += 1
            continue
        if all(v is None for v in b):
            kind = "reference unknown, this build known"
        elif all(v is None for v in a):
            kind = "this build unknown, reference known"
        else:
            kind = "differ: " + ", ".join(n for n, x, y in zip(_NAMES, a, b, strict=True)
                                          if x != y)
        kinds[kind] += 1
        if len(shown.setdefault(kind, [])) < samples:
            shown[kind].append(f"{key[0][:12]} {key[1]} {key[2]}: this {a} reference {b}")
    return {"events": len(both), "only_here": len(new.keys() - old.keys()),
            "only_reference": len(old.keys() - new.keys()), "counts": dict(kinds),
            "samples": shown}


def backfill_and_fill(src: Path, work: Path, whole: Path | None = None
                      ) -> tuple[Path, dict[str, Any]]:
    """Backfill a clone of ``src``, then read every event's facts (``whole``: also into a
    copy of the store, every version read whole: the reference for derived versions)."""
    from warpline.git import eventfacts
    from warpline.git.repo import head_commit, open_repo
    from warpline.ingest.driver import Ingestor
    from warpline.ingest.facts import fill
    from warpline.store.db import Store, store_path

    root = clone(src, work / "clone", head_sha(src))
    repo = open_repo(root)
    started = time.perf_counter()
    with Store.open(root) as store:
        Ingestor(store, repo).catch_up(head_commit(repo))
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    events_s = time.perf_counter() - started
    if whole is not None:
        shutil.copytree(root / ".weft", whole / ".weft")
        eventfacts.DERIVE = False
        try:
            with Store.open(whole) as store:
                fill(store, repo)
        finally:
            eventfacts.DERIVE = True
    return store_path(root), _fill(root, repo, events_s)


def _fill(root: Path, repo: Any, events_s: float) -> dict[str, Any]:
    from warpline.git.eventfacts import FactReader
    from warpline.ingest.facts import fill
    from warpline.store.db import Store
    from warpline.store.eventfacts import count_pending

    with Store.open(root) as store:
        pending = count_pending(store)
        reader = FactReader(repo)
        began, cpu = time.perf_counter(), time.process_time()
        report = fill(store, repo, reader=reader)
        figures = {"backfill_s": round(events_s, 2), "pending": pending,
                   "fill_s": round(time.perf_counter() - began, 2),
                   "fill_cpu_s": round(time.process_time() - cpu, 2),
                   "read": report.read, "left": report.left,
                   "versions_parsed": report.parses, "versions_reused": report.reused,
                   "reuse_rate": round(report.reused / max(1, report.reused + report.parses),
                                       3)}
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", nargs="?", type=Path)
    parser.add_argument("--reference", type=Path, action="append", default=[])
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"))
    parser.add_argument("--check-derived", action="store_true",
                        help="also read every version whole (eventfacts.DERIVE off) into a "
                             "copy of the store and compare: derived reads must agree")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {}
    if args.compare:
        result["compare"] = compare(read_facts(args.compare[0]), read_facts(args.compare[1]))
        _print(str(args.compare[0]), str(args.compare[1]), result["compare"])
    else:
        if args.repo is None:
            parser.error("give REPO (and --reference) or --compare A B")
        with tempfile.TemporaryDirectory(prefix="warpline-facts-") as work:
            whole = Path(work) / "whole" if args.check_derived else None
            if whole is not None:
                whole.mkdir()
            db, figures = backfill_and_fill(args.repo.resolve(), Path(work), whole)
            result.update(repo=str(args.repo), **figures)
            print(f"{args.repo}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
            new = read_facts(db)
            if whole is not None:
                result["derived_vs_whole"] = compare(
                    new, read_facts(whole / ".weft" / "warpline" / "warpline.db"))
                _print(str(args.repo), "every version read whole",
                       result["derived_vs_whole"])
            result["references"] = {}
            for ref in args.reference:
                found = compare(new, read_facts(ref))
                result["references"][str(ref)] = found
                _print(str(args.repo), str(ref), found)
    write_report("facts", result)
    return 0


def _print(here: str, ref: str, found: dict[str, Any]) -> None:
    print(f"  against {ref}: {found['events']} events compared "
          f"(+{found['only_here']} here only, +{found['only_reference']} reference only)")
    for kind, count in sorted(found["counts"].items(), key=lambda kv: -kv[1]):
        print(f"    {kind}: {count}")
        for line in found["samples"].get(kind, []):
            print(f"      {line}")


if __name__ == "__main__":
    sys.exit(main())
