"""Per-commit attribution of Rust, Go, Java, TypeScript and JavaScript against truths that
do not use tree-sitter.

    python bench/bench_lang_truth.py REPO [REPO ...] [--commits 1000] [--sample 6]
        [--language auto|rust|go|java|ts]
    python bench/bench_lang_truth.py --tiny     # every language on a tiny built history

For the newest ``--commits`` non-merge commits of each repository, warpline's
``commit_changes`` (what the store records) is compared with a truth built from git alone
(``git log --raw -M`` for the changed file pairs, ``git diff -U0`` for their changed
lines, DESIGN section 4's rules in ``_lang_events.py``) and a definitions reader per
language that is not warpline's:

* Go, Java: universal-ctags (``_ctags_truth.py``);
* Rust: loomweave-plugin-rust, the plugin itself over JSON-RPC (``_rust_truth.py``), for
  the files under a crate's ``src/`` only, and warpline's events restricted to ids
  loomweave can emit (no ``~`` extension ids, no ``union``);
* TypeScript, JavaScript: the TypeScript compiler's own parser (``ts_truth.js``, run by
  node; ``_ts_truth.py``).

Only class and function events are compared, as ``(commit, locator, change kind)``, with
the protocol of ``bench_attribution_truth.py``: a warpline ``moved`` the truth also sees
as a moved definition (a file renamed into another module) compares as ``moved``; any
other lineage pair is expanded to the ``removed`` + ``added`` the truth sees (counted); a
locator both removed and added in one commit is ``modified`` on both sides. File versions
either side cannot read are left out of both sides and counted. Printed: precision and
recall per repository, and the disagreements by category with a sample of each.
A language whose tool is missing is skipped with a line saying so (exit 0).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from _lang_events import Defs, Key, pair_events, settle
from _lang_git import Blobs, Commit, FilePair, changed_lines, commits
from bench_attribution_truth import category

from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.repo import open_repo, resolve_commit

SUFFIXES = {"go": (".go",), "java": (".java",), "rust": (".rs",),
            "ts": (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")}


def detect(path: Path) -> str:
    """The language of most of the repository's tracked source files."""
    import subprocess

    files = subprocess.run(["git", "-C", str(path), "ls-files"], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    counts = Counter(lang for f in files for lang, sfx in SUFFIXES.items()
                     if f.endswith(sfx) and "node_modules/" not in f)
    return counts.most_common(1)[0][0] if counts else "go"


def make_truth(language: str, repo: Path, outside_src: bool = False) -> Any:
    if language in ("go", "java"):
        if shutil.which("ctags") is None:
            return "universal-ctags is not installed (apt install universal-ctags)"
        from _ctags_truth import CtagsTruth

        return CtagsTruth(language)
    if language == "rust":
        from _rust_truth import RustTruth, missing

        return missing() or RustTruth(outside_src)
    from _ts_truth import TsTruth
    from _ts_truth import missing as ts_missing

    return ts_missing() or TsTruth()


def warpline_events(changes: Any, sha: str, suffixes: tuple[str, ...], keep: Any,
                    truth_moves: dict[Key, str]) -> tuple[set[Key], dict[Key, bool], int]:
    """warpline's class/function events of one commit (lineage pairs the truth cannot see
    expanded), whether each ``moved`` changed text, and the pairs expanded."""
    events: set[Key] = set()
    edited: dict[Key, bool] = {}
    pairs = 0
    for c in changes.changes:
        if c.kind not in ("class", "function") or not c.path.endswith(suffixes):
            continue
        if not keep(c.locator, c.path) and not keep(c.previous_locator or "",
                                                     c.previous_path or ""):
            continue
        if c.change_kind != "moved":
            if keep(c.locator, c.path):
                events.add((sha, c.locator, c.change_kind))
            continue
        key = (sha, c.locator, "moved")
        if truth_moves.get(key) == c.previous_locator:
            events.add(key)
            edited[key] = c.also_modified
            continue
        pairs += 1
        if c.previous_locator and keep(c.previous_locator, c.previous_path or c.path):
            events.add((sha, c.previous_locator, "removed"))
        if keep(c.locator, c.path):
            events.add((sha, c.locator, "added"))
    return settle(events), edited, pairs


def truth_events(commit: Commit, truth: Any, blobs: Blobs, repo: Path, skip: set[str]
                 ) -> tuple[set[Key], dict[Key, bool], dict[Key, str], set[str], set[str]]:
    """The truth's events of one commit (pairs with a path in ``skip`` left out), the
    previous locator of each ``moved``, the paths it read and the paths it could not
    read."""
    events: set[Key] = set()
    edited: dict[Key, bool] = {}
    moves: dict[Key, str] = {}
    read: set[str] = set()
    unread: set[str] = set()
    parent = f"{commit.sha}^"
    for pair in commit.pairs:
        if pair.old_path in skip or pair.new_path in skip:
            continue
        old = _side(truth, blobs, pair.old_blob, pair.old_path, parent, unread)
        new = _side(truth, blobs, pair.new_blob, pair.new_path, commit.sha, unread)
        if (pair.old_path in unread) or (pair.new_path in unread):
            continue
        if old is None and new is None:
            continue
        read.update(p for p, side in ((pair.old_path, old), (pair.new_path, new))
                    if p and side is not None)
        changed = None
        if old is not None and new is not None and pair.old_blob and pair.new_blob:
            changed = changed_lines(repo, pair.old_blob, pair.new_blob)
        found, moved_edit = pair_events(commit.sha, old, new, changed, pair.status == "R")
        events |= found
        edited.update(moved_edit)
        if old is not None and new is not None:
            for key in moved_edit:
                moves[key] = next(old.locator(k) for k in old.spans
                                  if new.locator(k) == key[1])
    return settle(events), edited, moves, read, unread


def _side(truth: Any, blobs: Blobs, oid: str | None, path: str | None, commit: str,
          unread: set[str]) -> Defs | None:
    if oid is None or path is None or not truth.covers(path):
        return None
    found: Defs | bool | None = truth.defs(blobs, oid, path, commit)
    if found is False or found is True:  # not a file the truth reads (Rust: outside src/)
        return None
    if found is None:
        unread.add(path)
    return found


def _category(key: Key, mine: set[Key], other: set[Key],
              hidden: set[tuple[str, str]] | None = None) -> str:
    sha, locator, kind = key
    inner = locator.split(":", 2)[-1] + ".~"
    if kind == "modified" and hidden and any(
            s == sha and loc.split(":", 2)[-1].startswith(inner) for s, loc in hidden):
        return "modified: its edited lines are an entity the truth cannot name (warpline's ~ " \
               "extension: a trait item, a nested fn)"
    return category(key, mine, other)


def score(path: Path, language: str, count: int, sample: int,
          outside_src: bool = False) -> dict[str, Any]:
    truth = make_truth(language, path, outside_src)
    if isinstance(truth, str):
        return {"repo": path.name, "language": language, "skipped": truth}
    repo = open_repo(path)
    cache = DefinitionCache()
    blobs = Blobs(path)
    started = time.perf_counter()
    suffixes = SUFFIXES[language]
    history = commits(path, count, suffixes)
    wanted = {(oid, path) for c in history for p in c.pairs for oid, path in _wanted(truth, p)}
    if hasattr(truth, "prefetch_pairs"):
        truth.prefetch_pairs(blobs, {(oid, path[path.rfind("."):]) for oid, path in wanted})
    elif hasattr(truth, "prefetch"):
        truth.prefetch(blobs, {oid for oid, _ in wanted})
    ours: set[Key] = set()
    theirs: set[Key] = set()
    agree_edit = Counter[str]()
    left_out: Counter[str] = Counter()
    lineage_pairs = 0
    hidden: set[tuple[str, str]] = set()  # warpline's events the truth cannot name
    unread_sample: list[str] = []
    outside = 0  # warpline's events in files the truth does not read (Rust: outside src/)
    for commit in history:
        changes = commit_changes(repo, resolve_commit(repo, commit.sha), cache)
        w_unread = {p for p in changes.unparsed_files if p.endswith(suffixes)}
        t_events, t_edit, t_moves, read, t_unread = truth_events(commit, truth, blobs, path,
                                                                 w_unread)
        left_out["warpline cannot read"] += len(w_unread)
        left_out["truth cannot read"] += len(t_unread)
        unread_sample.extend(f"{commit.sha[:12]} {p}" for p in sorted(t_unread | w_unread))
        read -= t_unread

        def keep(locator: str, file: str, read: set[str] = read) -> bool:
            return file in read and bool(truth.accepts(locator))

        w_events, w_edit, pairs = warpline_events(changes, commit.sha, suffixes, keep, t_moves)
        hidden |= {(commit.sha, c.locator) for c in changes.changes
                   if c.path in read and not truth.accepts(c.locator)}
        outside += sum(1 for c in changes.changes if c.kind in ("class", "function")
                       and c.path.endswith(suffixes) and c.path not in read
                       and c.path not in w_unread and c.path not in t_unread)
        lineage_pairs += pairs
        theirs |= t_events
        ours |= w_events
        for key, value in t_edit.items():
            if key in w_edit:
                agree_edit["agree" if w_edit[key] == value else
                           f"warpline also_modified={w_edit[key]}, truth {value}"] += 1
    blobs.close()
    if hasattr(truth, "close"):
        truth.close()
    both = theirs & ours
    categories: dict[str, list[Key]] = defaultdict(list)
    for key in sorted(ours - theirs):
        categories["warpline only: " + _category(key, ours, theirs)].append(key)
    for key in sorted(theirs - ours):
        categories["truth only: " + _category(key, theirs, ours, hidden)].append(key)
    rng = random.Random(0)
    return {
        "repo": path.name, "language": language, "commits": len(history),
        "truth_events": len(theirs), "warpline_events": len(ours), "agree": len(both),
        "precision": round(len(both) / max(len(ours), 1), 4),
        "recall": round(len(both) / max(len(theirs), 1), 4),
        "lineage_pairs_expanded": lineage_pairs,
        "warpline_events_the_truth_cannot_name": len(hidden),
        "warpline_events_in_files_the_truth_does_not_read": outside,
        "file_versions_left_out": dict(left_out),
        "left_out": unread_sample[:sample],
        "also_modified_on_moves": dict(agree_edit),
        "disagreements": {name: {"count": len(keys), "sample": [
            f"{s[:12]} {loc} {k}" for s, loc, k in rng.sample(keys, min(sample, len(keys)))]}
            for name, keys in sorted(categories.items(), key=lambda kv: -len(kv[1]))},
        "seconds": round(time.perf_counter() - started, 1),
    }


def _wanted(truth: Any, pair: FilePair) -> list[tuple[str, str]]:
    return [(oid, p) for oid, p in ((pair.old_blob, pair.old_path), (pair.new_blob, pair.new_path))
            if oid and p and truth.covers(p)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*", type=Path)
    parser.add_argument("--tiny", action="store_true",
                        help="score every language on a tiny built history (the smoke)")
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=6)
    parser.add_argument("--language", default="auto", choices=["auto", *SUFFIXES])
    parser.add_argument("--rust-outside-src", action="store_true",
                        help="Rust: also files of a crate outside src/ (loomweave's parse, "
                             "warpline's module name)")
    args = parser.parse_args()
    runs: list[tuple[Path, str]] = []
    tiny = None
    if args.tiny:
        from _lang_tiny import build

        tiny = tempfile.TemporaryDirectory(prefix="lang-truth-tiny-")
        built = build(Path(tiny.name) / "demo")
        runs = [(built, language) for language in SUFFIXES]
    runs += [(path, detect(path) if args.language == "auto" else args.language)
             for path in args.repos]
    if not runs:
        parser.error("name a repository or --tiny")
    results = []
    for path, language in runs:
        result = score(path, language, args.commits, args.sample, args.rust_outside_src)
        results.append(result)
        if "skipped" in result:
            print(f"== {result['repo']} ({language}): skipped: {result['skipped']}")
            continue
        print(f"== {result['repo']} ({language}): {result['commits']} commits, truth "
              f"{result['truth_events']} events, warpline {result['warpline_events']}, "
              f"agree {result['agree']}, {result['seconds']} s")
        print(f"   precision {result['precision']}  recall {result['recall']}  "
              f"(lineage pairs expanded: {result['lineage_pairs_expanded']}; file versions "
              f"left out: {result['file_versions_left_out']}; warpline events the truth "
              f"cannot name, not compared: {result['warpline_events_the_truth_cannot_name']}, "
              f"in files it does not read: "
              f"{result['warpline_events_in_files_the_truth_does_not_read']})")
        print(f"   also_modified on moves: {result['also_modified_on_moves']}")
        for line in result["left_out"]:
            print(f"   left out: {line}")
        for name, info in result["disagreements"].items():
            print(f"   {info['count']:5}  {name}")
            for line in info["sample"]:
                print(f"            {line}")
    if tiny is not None:
        tiny.cleanup()
        return 0
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_lang_truth.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
