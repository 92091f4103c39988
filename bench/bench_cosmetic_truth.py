"""What a change means, against an independent truth: ``ast.dump`` of both versions of
each changed definition.

    python bench/bench_cosmetic_truth.py REPO [REPO ...] [--commits 3000] [--sample 6]

For the newest ``--commits`` non-merge commits of each repository, every Python class or
function event warpline's ``commit_changes`` records as ``modified`` or ``moved`` is judged
by the truth, written here from Python's ``ast`` alone (no warpline code): both versions of
the file (``git cat-file``: ``<parent>:<old path>`` and ``<commit>:<path>``) are parsed
whole, the definition found by its qualified name (``_ast_truth._walk``: CPython's
``__qualname__``, ``@overload`` stubs and redefinitions as further occurrences), and each
occurrence dumped with its docstring dropped, its name blanked and its nested definitions
(their own entities) replaced by one marker. The change is cosmetic when the dumps are
equal and the name is the same.

warpline's side is the recorded facts: cosmetic when ``code_same`` and not
``signature_changed`` (a docstring-only change counts: the doctest rule is the answer's,
not the record's). Printed: precision and recall of cosmetic, the events left out (facts
unknown: a version warpline read with its tolerant parser; truth unreadable: a side
``ast`` rejects), and a sample of each disagreement. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import random
import time
import warnings
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from _ast_truth import Blobs, _walk, commits, dotted

from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.eventfacts import FactReader
from warpline.git.events import CommitChanges, EntityChange
from warpline.git.repo import open_repo, resolve_commit

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Marker(ast.NodeTransformer):
    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, _DEFS):
            return ast.Expr(ast.Constant("nested"))
        return super().generic_visit(node)


def _normal(node: ast.AST) -> str:
    node = copy.deepcopy(node)
    assert isinstance(node, _DEFS)
    body = node.body
    if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        body = body[1:]
    node.body = [_Marker().visit(stmt) for stmt in body]
    node.name = ""
    return ast.dump(node)


class Versions:
    """Parsed file versions by object name (``<rev>:<path>``), each parsed once."""

    def __init__(self, blobs: Blobs) -> None:
        self.blobs = blobs
        self.memo: dict[str, dict[str, list[str]] | None] = {}

    def definitions(self, name: str) -> dict[str, list[str]] | None:
        """qualname -> the normal dump of each occurrence; None: ``ast`` cannot read it."""
        if name not in self.memo:
            self.memo[name] = self._read(name)
        return self.memo[name]

    def _read(self, name: str) -> dict[str, list[str]] | None:
        source = self.blobs.read(name)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        out: dict[str, list[str]] = {}
        for _, qualname, node, _ in list(_walk(tree.body, "")):
            out.setdefault(qualname, []).append(_normal(node))
        return out


def _qualname(locator: str, path: str) -> str | None:
    module = dotted(path)
    head = locator.split(":", 2)[-1]
    if module is None or not head.startswith(module + "."):
        return None
    return head[len(module) + 1:]


def with_read_facts(reader: FactReader, found: CommitChanges) -> list[EntityChange]:
    """The commit's changes with the facts an answer reads for them (``git/eventfacts``:
    the walk no longer reads them)."""
    asked = [c for c in found.changes
             if c.kind != "file" and c.change_kind in ("modified", "moved")]
    facts = dict(zip(map(id, asked), reader.facts(found.commit.sha, asked), strict=True))
    return [replace(c, facts=facts.get(id(c))) for c in found.changes]


def score(path: Path, count: int, sample: int) -> dict[str, Any]:
    repo = open_repo(path)
    cache = DefinitionCache()
    reader = FactReader(repo)  # the facts as an answer reads them for a stored event
    versions = Versions(Blobs(path))
    started = time.perf_counter()
    outcome: Counter[str] = Counter()
    cases: dict[str, list[str]] = {}
    history = list(reversed(commits(path, count)))  # oldest first: warm parse caches
    for commit in history:
        if not commit.pairs:
            continue
        changes = commit_changes(repo, resolve_commit(repo, commit.sha), cache)
        for c in with_read_facts(reader, changes):
            if not c.locator.startswith("python:") or c.kind not in ("class", "function"):
                continue
            if c.change_kind not in ("modified", "moved"):
                continue
            old_path = c.previous_path or c.path
            old_q = _qualname(c.previous_locator or c.locator, old_path)
            new_q = _qualname(c.locator, c.path)
            if c.facts is None:
                outcome["left out: facts unknown"] += 1
                continue
            old = versions.definitions(f"{commit.sha}^:{old_path}")
            new = versions.definitions(f"{commit.sha}:{c.path}")
            if old is None or new is None or old_q not in old or new_q not in new:
                outcome["left out: truth unreadable"] += 1
                continue
            assert old_q is not None and new_q is not None
            truth = (old[old_q] == new[new_q]
                     and old_q.rsplit(".", 1)[-1] == new_q.rsplit(".", 1)[-1])
            ours = c.facts[0] and not c.facts[2]
            label = {(True, True): "both cosmetic", (False, False): "both not cosmetic",
                     (True, False): "warpline only cosmetic",
                     (False, True): "truth only cosmetic"}[(bool(ours), truth)]
            outcome[label] += 1
            cases.setdefault(label, []).append(f"{commit.sha[:12]} {c.locator}")
    versions.blobs.close()
    tp = outcome["both cosmetic"]
    ours_n = tp + outcome["warpline only cosmetic"]
    truth_n = tp + outcome["truth only cosmetic"]
    rng = random.Random(0)
    return {
        "repo": path.name, "commits": len(history), "outcome": dict(outcome),
        "cosmetic_precision": round(tp / max(ours_n, 1), 4),
        "cosmetic_recall": round(tp / max(truth_n, 1), 4),
        "samples": {label: rng.sample(found, min(sample, len(found)))
                    for label, found in cases.items() if "only" in label},
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--sample", type=int, default=6)
    args = parser.parse_args()
    results = []
    for path in args.repos:
        result = score(path, args.commits, args.sample)
        results.append(result)
        print(f"== {result['repo']}: {result['commits']} commits, {result['seconds']} s")
        print(f"   cosmetic precision {result['cosmetic_precision']}  "
              f"recall {result['cosmetic_recall']}")
        for label, n in sorted(result["outcome"].items()):
            print(f"   {n:6}  {label}")
        for label, found in result["samples"].items():
            print(f"   {label}:")
            for line in found:
                print(f"            {line}")
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_cosmetic_truth.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
