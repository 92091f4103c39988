"""Per-commit attribution against an independent truth (``bench/_ast_truth.py``).

    python bench/bench_attribution_truth.py REPO [REPO ...] [--commits 2000] [--sample 8]

For the newest ``--commits`` non-merge commits of each repository, warpline's
``commit_changes`` (what the store records) is compared with the truth built from
``git log --raw -M`` and Python's ``ast`` over both sides of each changed ``.py`` file.
Only class and function events are compared, as ``(commit, locator, kind)``:

* a warpline ``moved`` that keeps the qualified name in a file git renamed compares as
  ``moved``; a lineage pair (a definition renamed or moved to another name) is expanded to
  the ``removed`` + ``added`` the truth sees, and counted apart (the function-history
  check, ``bench/bench_history_truth.py``, judges those pairs); a locator both removed
  and added that way (renamed while a new definition took its name) is ``modified``;
* file versions ``ast`` cannot read on either side are left out of both sides (warpline
  reads them with its tolerant parser; the truth cannot) and counted.

Printed: precision and recall per repository, ``also_modified`` agreement on moves, and
the disagreements by category with a sample of each, for reading. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from _ast_truth import Blobs, Key, commits, dotted, truth_events

from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.repo import open_repo, resolve_commit


def _qualname(locator: str, path: str | None) -> str | None:
    module = dotted(path) if path else None
    if module is None:
        return None
    head = locator.split(":", 2)[-1]
    return head[len(module) + 1:] if head.startswith(module + ".") else None


def warpline_events(repo: Any, sha: str, cache: DefinitionCache, skipped: set[str],
                    renames: set[tuple[str, str]]) -> tuple[set[Key], dict[Key, bool], int]:
    changes = commit_changes(repo, resolve_commit(repo, sha), cache)
    events: set[Key] = set()
    edited: dict[Key, bool] = {}
    pairs = 0
    for c in changes.changes:
        if c.kind not in ("class", "function"):
            continue
        if c.path in skipped or (c.previous_path or "") in skipped:
            continue
        if c.change_kind != "moved":
            events.add((sha, c.locator, c.change_kind))
            continue
        old_q = _qualname(c.previous_locator or c.locator, c.previous_path or c.path)
        new_q = _qualname(c.locator, c.path)
        file_moved = (c.previous_path or c.path, c.path) in renames
        if old_q is not None and old_q == new_q and file_moved:
            key = (sha, c.locator, "moved")
            events.add(key)
            edited[key] = c.also_modified
        else:
            pairs += 1
            events.add((sha, c.previous_locator or c.locator, "removed"))
            events.add((sha, c.locator, "added"))
    # A rename while a new definition takes the old name (``f -> g`` and a new ``f``):
    # warpline's ``added`` f plus the pair's expanded ``removed`` f is, per locator as the
    # truth sees it, f ``modified``.
    for sha_, locator, kind in list(events):
        if kind == "removed" and (sha_, locator, "added") in events:
            events -= {(sha_, locator, "removed"), (sha_, locator, "added")}
            events.add((sha_, locator, "modified"))
    return events, edited, pairs


def category(key: Key, mine: set[Key], other: set[Key]) -> str:
    """Why one side has an event the other lacks, by what the other side has instead."""
    sha, locator, kind = key
    twins = {k for (s, loc, k) in other if s == sha and loc == locator}
    if twins:
        return f"{kind} vs {'/'.join(sorted(twins))}"
    leaf = locator.rsplit(".", 1)[-1]
    if kind in ("added", "removed") and any(
            s == sha and loc.rsplit(".", 1)[-1] == leaf for (s, loc, _) in other):
        return f"{kind}: same name elsewhere (locator differs)"
    return f"{kind}: nothing on the other side"


def score(path: Path, count: int, sample: int) -> dict[str, Any]:
    repo = open_repo(path)
    cache = DefinitionCache()
    blobs = Blobs(path)
    started = time.perf_counter()
    truth: set[Key] = set()
    ours: set[Key] = set()
    agree_edit = Counter[str]()
    skipped_total = 0
    lineage_pairs = 0
    history = list(reversed(commits(path, count)))  # oldest first: warm parse caches
    for commit in history:
        t_events, t_edit, skipped = truth_events(commit, blobs)
        skipped_total += len(skipped)
        renames = {(p.old_path, p.new_path) for p in commit.pairs if p.status == "R"
                   and p.old_path and p.new_path}
        w_events, w_edit, pairs = warpline_events(repo, commit.sha, cache, skipped, renames)
        lineage_pairs += pairs
        truth |= t_events
        ours |= w_events
        for key, value in t_edit.items():
            if key in w_edit:
                agree_edit["agree" if w_edit[key] == value else
                           f"warpline also_modified={w_edit[key]}, truth {value}"] += 1
    blobs.close()
    both = truth & ours
    only_ours = ours - truth
    only_truth = truth - ours
    categories: dict[str, list[Key]] = defaultdict(list)
    for key in sorted(only_ours):
        categories["warpline only: " + category(key, ours, truth)].append(key)
    for key in sorted(only_truth):
        categories["truth only: " + category(key, truth, ours)].append(key)
    rng = random.Random(0)
    return {
        "repo": path.name, "commits": len(history),
        "truth_events": len(truth), "warpline_events": len(ours), "agree": len(both),
        "precision": round(len(both) / max(len(ours), 1), 4),
        "recall": round(len(both) / max(len(truth), 1), 4),
        "lineage_pairs_expanded": lineage_pairs,
        "file_versions_ast_cannot_read": skipped_total,
        "also_modified_on_moves": dict(agree_edit),
        "disagreements": {name: {"count": len(keys), "sample": [
            f"{s[:12]} {loc} {k}" for s, loc, k in rng.sample(keys, min(sample, len(keys)))]}
            for name, keys in sorted(categories.items(), key=lambda kv: -len(kv[1]))},
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--sample", type=int, default=8)
    args = parser.parse_args()
    results = []
    for path in args.repos:
        result = score(path, args.commits, args.sample)
        results.append(result)
        print(f"== {result['repo']}: {result['commits']} commits, truth {result['truth_events']}"
              f" events, warpline {result['warpline_events']}, agree {result['agree']}")
        print(f"   precision {result['precision']}  recall {result['recall']}  "
              f"(lineage pairs expanded: {result['lineage_pairs_expanded']}; file versions "
              f"ast cannot read, left out: {result['file_versions_ast_cannot_read']})")
        print(f"   also_modified on moves: {result['also_modified_on_moves']}")
        for name, info in result["disagreements"].items():
            print(f"   {info['count']:5}  {name}")
            for line in info["sample"]:
                print(f"            {line}")
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_attribution_truth.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
