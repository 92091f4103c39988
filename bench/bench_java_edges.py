"""Java's built-in edges against javac's own symbol resolution (issue 37 item 1).

    python bench/bench_java_edges.py                     # junit4's HEAD (the corpus)
    python bench/bench_java_edges.py --clone DIR [--show N] [--json OUT]

The truth is ``bench/java_truth/JavacEdges.java``, compiled with the JDK's ``javac`` at
bench time (nothing binary is kept) and run over the same commit's ``src/main/java`` and
``src/test/java`` with the project's dependencies (``mvn dependency:build-classpath``):
javac parses and attributes every file, then each call site, type name and override is
read from its own resolution. Compared, per class, as sets of (source, target) pairs
between definitions:

* ``calls``: the built-in ``calls`` edges that are not dispatch edges (certain and
  candidate ones; candidates are reported apart too) against javac's calls;
* ``references``: ``references`` against javac's type references;
* ``dispatch``: the built-in dispatch edges against javac's overrides.

Runner edges (a test to the repository's runner that runs it, from ``@RunWith`` and
JUnit's defaults) have no javac truth: counted apart, never compared.

Prints precision and recall per class, the capture's cost (``capture-snapshot``'s
built-in pass, CPU and wall), and with ``--show`` the first N disagreements per class.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent))

from warpline.graph.builtin import capture_builtin
from warpline.runners.maven_jacoco import DEPENDENCY_PLUGIN

BENCH = Path(__file__).resolve().parent
CORPUS = Path("/work/shared/corpora/junit4.bundle")
Pair = tuple[str, str]


def clone(target: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(CORPUS), str(target)], check=True)
    return target


def tiny(target: Path) -> Path:
    sys.path.insert(0, str(BENCH.parent))
    from tests.javaproject import write

    write(target)
    for step in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                  "commit", "-qm", "calc"]):
        subprocess.run(["git", *step], cwd=target, check=True)
    return target


def classpath(root: Path, out: Path) -> str:
    target = out / "cp.txt"
    subprocess.run(["mvn", "-q", "-B", DEPENDENCY_PLUGIN, f"-Dmdep.outputFile={target}"],
                   cwd=root, check=True, capture_output=True)
    return target.read_text().strip()


def truth(root: Path, out: Path, kept: Path | None = None) -> dict[str, set[Pair]]:
    tsv = kept or out / "truth.tsv"
    if kept is None:
        run_truth(root, out, tsv)
    found: dict[str, set[Pair]] = {"calls": set(), "references": set(), "dispatch": set()}
    for line in tsv.read_text(encoding="utf-8").splitlines():
        kind, source, target, _ = line.split("\t")
        found["dispatch" if kind == "overrides" else kind].add((source, target))
    return found


def run_truth(root: Path, out: Path, tsv: Path) -> None:
    classes = out / "classes"
    classes.mkdir(exist_ok=True)
    subprocess.run(["javac", "-d", str(classes), str(BENCH / "java_truth" / "JavacEdges.java")],
                   check=True)
    files = sorted(str(p) for d in ("src/main/java", "src/test/java")
                   for p in (root / d).rglob("*.java"))
    subprocess.run(["java", "-cp", str(classes), "JavacEdges", str(tsv), classpath(root, out),
                    "8", f"{root}/", *files], check=True)


def built_in(root: Path) -> tuple[dict[str, set[Pair]], set[Pair], dict[str, float]]:
    repo = pygit2.Repository(str(root))
    commit = repo.head.peel(pygit2.Commit)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    capture = capture_builtin(repo, commit)
    cost = {"cpu_s": round(time.process_time() - cpu0, 2),
            "wall_s": round(time.perf_counter() - wall0, 2),
            "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "entities": len(capture.entities), "edges": len(capture.edges),
            "unresolved": capture.unresolved, "failed": len(capture.failed_entities)}
    found: dict[str, set[Pair]] = {"calls": set(), "references": set(), "dispatch": set()}
    candidates: set[Pair] = set()
    runner = 0
    for edge in capture.edges:
        pair = (edge.source_locator, edge.target_locator)
        if edge.confidence == "dispatch":
            found["dispatch"].add(pair)
        elif edge.confidence == "runner":
            runner += 1  # inferred from @RunWith / JUnit's defaults: no javac truth
        else:
            found[edge.kind].add(pair)
            if edge.confidence == "candidate":
                candidates.add(pair)
    cost["runner_edges"] = runner
    return found, candidates, cost


def score(ours: set[Pair], theirs: set[Pair]) -> dict[str, float | int]:
    both = len(ours & theirs)
    return {"ours": len(ours), "truth": len(theirs), "agree": both,
            "precision": round(both / len(ours), 4) if ours else 1.0,
            "recall": round(both / len(theirs), 4) if theirs else 1.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clone", type=Path, help="a clone of junit4 (default: a fresh one)")
    parser.add_argument("--tiny", action="store_true",
                        help="the small fixture project of the tests (a smoke run)")
    parser.add_argument("--truth", type=Path, help="a truth.tsv written before (skip javac)")
    parser.add_argument("--show", type=int, default=0, help="disagreements shown per class")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="java-edges-") as tmp:
        out = Path(tmp)
        root = tiny(out / "calc") if args.tiny else \
            args.clone.resolve() if args.clone else clone(out / "junit4")
        theirs = truth(root, out, args.truth)
        ours, candidates, cost = built_in(root)
    report: dict[str, object] = {"cost": cost}
    for kind in ("calls", "references", "dispatch"):
        report[kind] = score(ours[kind], theirs[kind])
    report["calls_certain_only"] = score(ours["calls"] - candidates, theirs["calls"])
    report["candidates"] = {"pairs": len(candidates),
                            "true": len(candidates & theirs["calls"])}
    print(json.dumps(report, indent=2))
    for kind in ("calls", "references", "dispatch") if args.show else ():
        extra = sorted(ours[kind] - theirs[kind])
        missing = sorted(theirs[kind] - ours[kind])
        print(f"\n## {kind}: {len(extra)} only ours, {len(missing)} only javac's")
        for label, pairs in (("ours", extra), ("javac", missing)):
            by_target = Counter(t for _, t in pairs)
            print(f"  top targets ({label}):", by_target.most_common(5))
            for source, target in pairs[:args.show]:
                print(f"  {label}: {source} -> {target}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("MAVEN_OPTS", "-Xmx512m")
    sys.exit(main())
