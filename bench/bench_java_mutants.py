"""Mutants on junit4 with the real suite (issue 37, Java acceptance): is every failing test
in the selection?

    python bench/bench_java_mutants.py [--clone DIR] [--count 20] [--json OUT]

At junit4's HEAD: a plain ``mvn test`` (the suite's own run, timed), the JaCoCo map
recorded once (``runners.maven_record``, timed: the overhead is the ratio of the two, same
run), the built-in capture once (edges and test facts). Then 20 methods of
``src/main/java`` the map saw the suite execute, chosen spread over the sorted list (no
randomness): each gets ``if (true) throw new RuntimeException("warpline mutant");`` as its
first statement, the whole suite runs (``mvn test``; Surefire's reports say which tests
failed; tests failing at HEAD already are left out), and the method is put back. Per
mutant:

* map-first: the tests the map saw execute the method, and the map's tests of every class
  whose initializers reach it within 4 calls (a static initializer runs once per JVM:
  the map links what it calls to the first test only);
* static: ``runners.maven_select.static_tests`` (edges within 6 hops + the floor);
* coverage truth: the map's tests of the method (the selection map-first gives);
* per test class: the whole classes of the map's tests (what a per-class map would give);
* a failing test neither selection holds is run again on the unmutated code (Surefire's
  own ``-Dtest``): one that fails there too is not the mutant's (a timing test on a loaded
  machine) and is named under ``flaky``;
* whether every failing test is in each selection (a class-level failure — its runner
  could not be built, ``Class#initializationError``, or a ``@BeforeClass``/``@AfterClass``
  failed, reported under the class's own name — is caught by any test of that class the
  selection runs), and each selection's size as a share of the suite.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent))

from warpline.graph.builtin import capture_builtin
from warpline.runners.maven_command import commands
from warpline.runners.maven_jacoco import test_id
from warpline.runners.maven_record import java_map, projects_at
from warpline.runners.maven_select import initializer_classes, static_tests
from warpline.testmap.wire import encode

CORPUS = Path("/work/shared/corpora/junit4.bundle")
MUTANT = 'if (true) throw new RuntimeException("warpline mutant");'


def mvn_test(root: Path) -> tuple[float, set[str]]:
    """(seconds, failing tests as ``Class#method``) of one whole-suite run."""
    reports = root / "target" / "surefire-reports"
    for old in reports.glob("TEST-*.xml") if reports.is_dir() else ():
        old.unlink()
    start = time.perf_counter()
    subprocess.run(["mvn", "-q", "-B", "test"], cwd=root, capture_output=True, check=False,
                   timeout=3600)
    seconds = time.perf_counter() - start
    failing: set[str] = set()
    for report in reports.glob("TEST-*.xml") if reports.is_dir() else ():
        for case in ET.parse(report).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                name = re.sub(r"\[.*$", "", case.get("name") or "")
                failing.add(f"{case.get('classname')}#{name}")
    return seconds, failing


def body_start(source: str, line: int, name: str) -> int | None:
    """The offset just after the opening brace of the method declared from ``line``."""
    lines = source.split("\n")
    offset = sum(len(x) + 1 for x in lines[:line - 1])
    at = source.find(f"{name}(", offset)
    if at < 0:
        return None
    depth = 0
    for index in range(at, len(source)):
        char = source[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == ";" and depth == 0:
            return None  # abstract or native: no body
        elif char == "{" and depth == 0:
            return index + 1
    return None


def _still_failing(root: Path, project: Any, ids: set[str]) -> set[str]:
    """Of ``ids``, the tests that fail on the unmutated code too (Surefire's own -Dtest)."""
    methods = sorted(i for i in ids if not _class_level(i))
    if not methods:
        return set()
    command = commands([project], methods)[0]
    reports = root / "target" / "surefire-reports"
    for old in reports.glob("TEST-*.xml") if reports.is_dir() else ():
        old.unlink()
    subprocess.run(["bash", "-c", command + " -q -B"], cwd=root, capture_output=True,
                   check=False, timeout=3600)
    again: set[str] = set()
    for report in reports.glob("TEST-*.xml") if reports.is_dir() else ():
        for case in ET.parse(report).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                name = re.sub(r"\[.*$", "", case.get("name") or "")
                found = test_id(project, root, f"{case.get('classname')}#{name}")
                if found:
                    again.add(found)
    return again & ids


def _class_level(failure: str) -> bool:
    """A failure of a class, not of one test: its runner could not be built
    (``#initializationError``), or Surefire names it after the class (``#pkg.Outer$Inner``:
    a ``@BeforeClass``/``@AfterClass`` or a class rule failed)."""
    method = failure.partition("#")[2]
    return method in ("initializationError", "classMethod") or "." in method


def _caught(failing: set[str], selected: set[str]) -> int:
    """Failing tests the selection holds; a class-level failure is caught when the
    selection runs any test of that class: that run fails the same way."""
    classes = {t.partition("#")[0] for t in selected}
    return sum(1 for f in failing
               if (f.partition("#")[0] in classes if _class_level(f) else f in selected))


def choose(recorded: Any, capture: Any, count: int) -> list[tuple[str, str, int]]:
    """(locator, path, first line) of methods in src/main/java the suite ran."""
    executed = {loc for hits in recorded.hits.values() for loc in hits}
    methods = sorted((e.locator, e.path, e.start_line) for e in capture.entities
                     if e.locator.startswith("java:method:") and e.locator in executed
                     and e.path.startswith("src/main/java/"))
    step = max(len(methods) // count, 1)
    return [methods[i] for i in range(0, len(methods), step)][:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clone", type=Path)
    parser.add_argument("--tiny", action="store_true",
                        help="the small fixture project of the tests, 2 mutants (a smoke run)")
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="java-mutants-") as tmp:
        if args.tiny:
            from bench_java_edges import tiny

            root = tiny(Path(tmp) / "calc")
        else:
            root = args.clone.resolve() if args.clone else Path(tmp) / "junit4"
        if not args.clone and not args.tiny:
            subprocess.run(["git", "clone", "-q", str(CORPUS), str(root)], check=True)
        report = run(root, 2 if args.tiny else args.count)
    print(json.dumps(report["summary"], indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


def run(root: Path, count: int) -> dict[str, Any]:
    repo = pygit2.Repository(str(root))
    commit = repo.head.peel(pygit2.Commit)
    plain_s, base_failing = mvn_test(root)
    start = time.perf_counter()
    recorded, _ = java_map(root, repo)
    record_s = time.perf_counter() - start
    cpu0 = time.process_time()
    capture = capture_builtin(repo, commit)
    capture_s = time.process_time() - cpu0
    facts = (capture.discovery or {})["java"]
    projects, _ = projects_at(repo, commit)
    project = projects[0]
    edges = [(e.source_locator, e.target_locator) for e in capture.edges]
    calls = [(e.source_locator, e.target_locator) for e in capture.edges if e.kind == "calls"]
    suite = len(recorded.tests)
    rows: list[dict[str, Any]] = []
    for locator, path, line in choose(recorded, capture, count):
        file = root / path
        original = file.read_text(encoding="iso-8859-1")
        name = locator.rpartition(".")[2].partition("(")[0]
        at = body_start(original, line, name)
        if at is None:
            continue
        file.write_text(original[:at] + " " + MUTANT + original[at:], encoding="iso-8859-1")
        try:
            _, failing = mvn_test(root)
        finally:
            file.write_text(original, encoding="iso-8859-1")
        failing -= base_failing
        failing_ids = {i for i in (test_id(project, root, f) for f in failing) if i}
        executed = {t for t, hits in recorded.hits.items() if locator in hits}
        widened = {t for t, hits in recorded.hits.items()
                   if hits & initializer_classes(calls, [locator])}
        by_map = executed | widened
        static = set(static_tests(edges, facts, [locator], [path]).tests)
        # A failure neither selection holds is run again without the mutant: one that fails
        # there too (a timing test on a loaded machine) is not the mutant's, and is named.
        flaky = _still_failing(root, project, failing_ids - (by_map & static))
        failing_ids -= flaky
        per_class = {t for t in recorded.tests if t.partition("#")[0] in
                     {x.partition("#")[0] for x in by_map}}
        rows.append({
            "locator": locator, "failing": sorted(failing_ids),
            "map_tests": len(by_map), "map_executed": len(executed),
            "per_class_tests": len(per_class),
            "per_class_all": _caught(failing_ids, per_class) == len(failing_ids),
            "map_initializers": len(widened - executed), "static_tests": len(static),
            "map_all": _caught(failing_ids, by_map) == len(failing_ids),
            "static_all": _caught(failing_ids, static) == len(failing_ids),
            "static_caught": _caught(failing_ids, static),
            "static_vs_truth": round(len(static & executed) / len(executed), 3)
            if executed else None,
            "flaky": sorted(flaky),
        })
        print(json.dumps(rows[-1])[:300], flush=True)
    failing_total = sum(len(r["failing"]) for r in rows)
    summary = {
        "suite_tests": suite, "mutants": len(rows),
        "mutants_with_failures": sum(1 for r in rows if r["failing"]),
        "map_first_all_selected": sum(1 for r in rows if r["map_all"]),
        "static_all_selected": sum(1 for r in rows if r["static_all"]),
        "static_recall_over_failing": round(
            sum(r["static_caught"] for r in rows) / failing_total, 4) if failing_total else None,
        "map_share_of_suite": round(sum(r["map_tests"] for r in rows) / (len(rows) * suite), 4),
        "per_class_share_of_suite": round(
            sum(r["per_class_tests"] for r in rows) / (len(rows) * suite), 4),
        "map_kib": round(len(encode(recorded, 0)) / 1024, 1),
        "map_tests_recorded": len(recorded.tests),
        "map_links": sum(len(h) for h in recorded.hits.values()),
        "static_share_of_suite": round(
            sum(r["static_tests"] for r in rows) / (len(rows) * suite), 4),
        "static_recall_of_coverage_truth": round(
            sum(r["static_vs_truth"] or 0 for r in rows) / len(rows), 4) if rows else None,
        "plain_mvn_test_s": round(plain_s, 1), "record_s": round(record_s, 1),
        "record_overhead_ratio": round(record_s / plain_s, 2),
        "capture_cpu_s": round(capture_s, 2), "failing_at_head": sorted(base_failing),
        "flaky": sorted({f for r in rows for f in r["flaky"]}),
    }
    return {"summary": summary, "mutants": rows}


if __name__ == "__main__":
    sys.exit(main())
