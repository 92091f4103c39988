"""Go's built-in edges against ``go/types`` (a truth that is not tree-sitter).

    python bench/bench_go_edges.py REPO [REPO ...] [--goos linux,windows,darwin] [--tags T,U]
        [--show 20]
    python bench/bench_go_edges.py --tiny      # the tests' fixture module, in a temp repo

For each repository (a clone whose HEAD holds a Go module at its root), ``bench/gotruth``
(a small Go program over ``golang.org/x/tools/go/packages``, built here into a temp dir;
module downloads go through the Go module proxy) prints the call and reference edges
between the module's definitions as ``go/types`` resolves them, once per ``--goos`` (files
behind build constraints are seen by the platform that builds them), and once more per
``--tags`` tag (a project's own build tags); the answers are joined. warpline's built-in
capture of HEAD (``capture_builtin``) is compared with it:

* precision and recall of its *certain* edges (confidence ``resolved``) as
  ``(source, target, kind)``, and ignoring the kind;
* its other edges (``candidate``: a method name on a receiver of unknown type;
  ``dispatch``: an implementation of an interface method called; ``implements``) are
  counted apart, with how many the truth holds: they are guesses said to be guesses;
* the disagreements, listed (``--show``) for reading (bench/README.md classifies them);
* the capture's cost: its wall time, and the ratio to ``git ls-tree -r`` + reading every
  ``.go`` blob in the same run (the lower bound: the bytes it must read).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pygit2

from warpline.graph.builtin import capture_builtin, source_blobs

BENCH = Path(__file__).resolve().parent
Edge = tuple[str, str, str]


def build_truth(scratch: Path) -> Path:
    binary = scratch / "gotruth"
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOWORK": "off"}
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=BENCH / "gotruth", env=env,
                   check=True, timeout=900)
    return binary


def truth_edges(binary: Path, repo: Path, goos: list[str], tags: list[str]) -> set[Edge]:
    found: set[Edge] = set()
    builds = [(name, "") for name in goos] + [(goos[0], tag) for tag in tags]
    for name, tag in builds:
        flags = "-mod=mod" + (f" -tags={tag}" if tag else "")
        env = {**os.environ, "GOOS": name, "GOFLAGS": flags, "GOWORK": "off"}
        out = subprocess.run([str(binary), "."], cwd=repo, env=env, capture_output=True,
                             text=True, check=True, timeout=1800).stdout
        for line in out.splitlines():
            row = json.loads(line)
            found.add((row["source"], row["target"], row["kind"]))
    return found


def lower_bound(repo: pygit2.Repository) -> float:
    start = time.perf_counter()
    source_blobs(repo.revparse_single("HEAD").peel(pygit2.Commit))
    return time.perf_counter() - start


def score(repo_path: Path, binary: Path, goos: list[str], tags: list[str],
          show: int) -> dict[str, Any]:
    repo = pygit2.Repository(str(repo_path))
    commit = repo.revparse_single("HEAD").peel(pygit2.Commit)
    bound = min(lower_bound(repo) for _ in range(3))
    walls = []
    for _ in range(3):
        start = time.perf_counter()
        capture = capture_builtin(repo, commit)
        walls.append(time.perf_counter() - start)
    truth = truth_edges(binary, repo_path, goos, tags)
    certain = {(e.source_locator, e.target_locator, e.kind) for e in capture.edges
               if e.confidence == "resolved"}
    guesses: Counter[str] = Counter()
    guesses_true: Counter[str] = Counter()
    for e in capture.edges:
        if e.confidence != "resolved":
            guesses[str(e.confidence)] += 1
            guesses_true[str(e.confidence)] += (e.source_locator, e.target_locator,
                                                e.kind) in truth
    hit = certain & truth
    pairs = {(s, t) for s, t, _ in certain}
    truth_pairs = {(s, t) for s, t, _ in truth}
    paths = {e.locator: e.path for e in capture.entities}
    go_entities = sum(1 for e in capture.entities if e.locator.startswith("go:"))
    return {
        "repo": str(repo_path), "truth": len(truth), "certain": len(certain),
        "precision": round(len(hit) / len(certain), 4) if certain else None,
        "recall": round(len(hit) / len(truth), 4) if truth else None,
        "precision_any_kind": round(len(pairs & truth_pairs) / len(pairs), 4) if pairs else None,
        "recall_any_kind": round(len(pairs & truth_pairs) / len(truth_pairs), 4)
        if truth_pairs else None,
        "guesses": dict(guesses), "guesses_in_truth": dict(guesses_true),
        "unresolved": capture.unresolved, "entities": go_entities,
        "capture_s": round(min(walls), 3), "read_blobs_s": round(bound, 3),
        "capture_ratio": round(min(walls) / bound, 1) if bound else None,
        "false_positives": [[*e, paths.get(e[0])] for e in sorted(certain - truth)[:show]],
        "false_negatives": [[*e, paths.get(e[0])] for e in sorted(truth - certain)[:show]],
    }


def tiny_repo(root: Path) -> Path:
    sys.path.insert(0, str(BENCH.parent))
    from tests.test_graph_go import FILES

    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for argv in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                  "commit", "-qm", "tiny"]):
        subprocess.run(["git", *argv], cwd=root, check=True)
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repos", nargs="*", type=Path)
    parser.add_argument("--tiny", action="store_true",
                        help="score the fixture module of tests/test_graph_go.py")
    parser.add_argument("--goos", default="linux,windows,darwin")
    parser.add_argument("--tags", default="",
                        help="build tags of the project's own, each one more truth build "
                             "(go-cmp: cmp_debug)")
    parser.add_argument("--show", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="warpline-gotruth-") as scratch:
        binary = build_truth(Path(scratch))
        repos = list(args.repos)
        if args.tiny:
            repos.append(tiny_repo(Path(scratch) / "tiny"))
        for repo in repos:
            print(json.dumps(score(repo.resolve(), binary, args.goos.split(","),
                                   [t for t in args.tags.split(",") if t], args.show),
                             indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
