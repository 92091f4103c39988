"""Ordinal shifts over whole histories (issue 35): a same-named definition inserted before
others renames each later one (``helper`` -> ``helper~2``, docs/languages.md); lineage
follows the definition (``git/lineage_ordinals.py``).

    python bench/bench_ordinal_shifts.py [BUNDLE_OR_REPO ...] [--main PATH]

Default: express, got, immer and luxon from ``/work/shared/corpora``. Each is backfilled
into a fresh store in a temporary clone; printed: the event digest (``_event_digest``),
and the commits' ordinal events:

* ``left``: (commit, file, base name) groups with an ``added`` ordinal (``x~N``) beside a
  ``modified`` namesake and no ordinal move: a shift read as an edit plus an addition
  (the history follows the position), or an edit beside a real addition (read them);
* ``followed``: ``moved`` events whose previous locator is the same file's locator with
  other ordinals (the history follows the definition);
* ``removed``: such groups with a ``removed`` ordinal (a definition removed before its
  namesakes shifts the later ones down: not followed; or a real removal);
* ``ordinal events``: events on locators carrying an ordinal;
* ``chained``: moves (any language) out of a locator another move of the commit moves
  into, where the store's order of moves matters (``lineages.assign``).

``--main PATH``: the same with the warpline tree at PATH (``PYTHONPATH``; e.g. ``git
archive main | tar -x -C PATH``), in a subprocess run from ``/tmp`` (the editable install
must not shadow it), for a before/after beside it. JSON to ``bench/out/``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_util import write_report
from _event_digest import event_digest
from bench_backfill import warpline_backfill

CORPORA = Path("/work/shared/corpora")
DEFAULT = ("express", "got", "immer", "luxon")
_ORDINAL = re.compile(r"~[0-9]+(?=\.|$)")


def _counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT ev.commit_id, e.locator, ev.change_kind, ev.path, ev.previous_locator, "
            "ev.previous_path FROM change_events ev JOIN entities e ON e.id = ev.entity_id "
            "WHERE e.locator LIKE 'ts:%'").fetchall()
        moves = conn.execute(
            "SELECT ev.commit_id, e.locator, ev.previous_locator FROM change_events ev "
            "JOIN entities e ON e.id = ev.entity_id WHERE ev.change_kind = 'moved' "
            "AND ev.previous_locator != e.locator").fetchall()
    finally:
        conn.close()
    # (commit, path, base locator) -> the change kinds of its locators, and whether an
    # ordinal move (same file, same base) happened there
    groups: dict[tuple[int, str, str], list[tuple[str, str]]] = defaultdict(list)
    shifted: set[tuple[int, str, str]] = set()
    ordinal = followed = 0
    for commit, locator, kind, path, previous, previous_path in rows:
        base = _ORDINAL.sub("", locator)
        groups[(commit, path, base)].append((locator, kind))
        if _ORDINAL.search(locator.rpartition(":")[2]):
            ordinal += 1
        if (kind == "moved" and previous and previous != locator and previous_path == path
                and _ORDINAL.sub("", previous) == base):
            followed += 1
            shifted.add((commit, path, base))
    left = removed = 0
    for at, events in groups.items():
        if at in shifted or not any(kind == "modified" for _, kind in events):
            continue
        kinds = [kind for loc, kind in events if _ORDINAL.search(loc.rpartition(":")[2])]
        left += "added" in kinds
        removed += "removed" in kinds
    targets: dict[int, set[str]] = defaultdict(set)
    for commit, locator, _ in moves:
        targets[commit].add(locator)
    chained = sum(1 for commit, _, previous in moves if previous in targets[commit])
    return {"events": len(rows), "ordinal_events": ordinal, "left": left,
            "removed": removed, "followed": followed, "chained_moves": chained}


def measure(source: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ordinals-") as tmp:
        path = Path(tmp) / source.stem
        subprocess.run(["git", "clone", "-q", str(source), str(path)], check=True)
        warpline_backfill(path)
        db = path / ".weft" / "warpline" / "warpline.db"
        return {"corpus": source.stem, "digest": event_digest(db), **_counts(db)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path)
    parser.add_argument("--main", type=Path, help="another warpline tree to compare")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sources = args.sources or [CORPORA / f"{name}.bundle" for name in DEFAULT]
    results: list[dict[str, Any]] = []
    for source in sources:
        result = {"branch": measure(source)}
        if args.main is not None:
            env = {**os.environ, "PYTHONPATH": str(args.main)}
            out = subprocess.run([sys.executable, __file__, "--json", str(source)], env=env,
                                 capture_output=True, text=True, check=True, cwd="/tmp").stdout
            result["main"] = json.loads(out)[0]["branch"]
        results.append(result)
        if not args.json:
            for side, found in result.items():
                digest = found["digest"]
                print(f"{found['corpus']:8} {side:6} events {digest['events']:6} "
                      f"sha256 {str(digest['sha256'])[:16]} lineage "
                      f"{str(digest['lineage_sha256'])[:16]}  TS/JS events "
                      f"{found['events']}, ordinal {found['ordinal_events']}, "
                      f"left {found['left']}, removed {found['removed']}, "
                      f"followed {found['followed']}, chained {found['chained_moves']}")
    if args.json:
        print(json.dumps(results))
        return 0
    write_report("bench_ordinal_shifts", {"results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
