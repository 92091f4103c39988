"""Mutants of cached definitions: is every failing test in the selection?

    python bench/bench_mutants.py                      # the generated shop project
    python bench/bench_mutants.py --project CLONE --pythonpath src
    python bench/bench_mutants.py --census CLONE ...   # cached definitions per corpus

For every cached definition of the project (``warpline.lang.pycached``, non-test files of
HEAD): record the map over the whole suite at the base commit (``pytest --warpline-record``)
and capture the edge snapshot once; then per definition, commit a mutant (``raise
RuntimeError`` as the first statement of its body), ask ``reverify HEAD~1..HEAD`` in
process, run the whole suite, and check every failing test is in the selection. The
selection is asked twice: as it is, and with the cached widening switched off in this
process (the selection before it existed), so recall before/after comes from one state.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _gen_cached
from _selection_eval import held, selected_ids, test_commands

from warpline.lang.pycached import cached_definitions
from warpline.service.impact.suggest import is_test_file

BENCH = Path(__file__).resolve().parent
MUTANT = 'raise RuntimeError("warpline mutant")'


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=bench", "-c",
                           "user.email=bench@example.invalid", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


PYTEST_ARGS: list[str] = []  # --pytest-args: the suite's paths and options, every run


def pytest_run(root: Path, pythonpath: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "WARPLINE_"))}
    env.update({"PYTHONDONTWRITEBYTECODE": "1",  # the bench dir: -p _loopback_guard
                "PYTHONPATH": os.pathsep.join([str(root / pythonpath), str(BENCH)])})
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *PYTEST_ARGS, *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=3600, check=False)


def cached_in(root: Path) -> list[tuple[str, str, str]]:
    """(path, qualname, decorator) of every cached definition of HEAD's non-test files."""
    out: list[tuple[str, str, str]] = []
    for path in git(root, "ls-files", "*.py").split():
        if is_test_file(path) or path.rsplit("/", 1)[-1] == "conftest.py":
            continue
        found = cached_definitions((root / path).read_bytes())
        out.extend((path, qualname, deco) for qualname, deco in sorted(found.items()))
    return out


def mutate(source: str, qualname: str) -> str | None:
    """``source`` with ``MUTANT`` first in ``qualname``'s body (None: a one-line def)."""
    names = qualname.replace(".<locals>", "").split(".")
    body: list[ast.stmt] = ast.parse(source).body
    target: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for name in names:
        found = next((s for s in _flat(body) if isinstance(
            s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and s.name == name), None)
        if found is None:
            return None
        body = found.body
        if not isinstance(found, ast.ClassDef):
            target = found
    if target is None or target.body[0].lineno == target.lineno:
        return None
    first = target.body[0]
    lines = source.splitlines(keepends=True)
    lines.insert(first.lineno - 1, " " * first.col_offset + MUTANT + "\n")
    return "".join(lines)


def _flat(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        out.append(stmt)
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and not isinstance(
                    stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.extend(_flat(inner))
    return out


def failing(root: Path, pythonpath: str, suite: list[str]) -> set[str]:
    """The tests the whole suite fails; a file that errors while collected (the mutant
    raises at import) fails every test of it."""
    run = pytest_run(root, pythonpath, "-rfE", "-p", "no:warpline")
    out: set[str] = set()
    known = set(suite)
    for line in re.findall(r"^(?:FAILED|ERROR) (.+)$", run.stdout, re.M):
        # An id may hold spaces (a parameter's text): the longest suite id the line starts
        # with, before the " - message" pytest appends.
        name = max((line[:i] for i in range(len(line), 0, -1)
                    if line[:i] in known and line[i:i + 3] in ("", " - ")),
                   key=len, default=line.split(" - ", 1)[0])
        out.update([name] if "::" in name else
                   [t for t in suite if t.startswith(name.rstrip("/") + ("::" if
                    name.endswith(".py") else "/"))] or [name])
    return out


def reverify(root: Path, suite: list[str], widen: bool) -> tuple[set[str], str, int]:
    from warpline.registry import call_tool
    from warpline.service.testing import testselect

    original = getattr(testselect, "widen")  # noqa: B009 (the name it calls, swapped below)
    if not widen:
        setattr(testselect, "widen", lambda *args, **kwargs: [])  # noqa: B010
    try:
        env = call_tool("reverify", {"repo": str(root), "rev_range": "HEAD~1..HEAD"})
    finally:
        setattr(testselect, "widen", original)  # noqa: B010
    selection = env["data"]["selection"]
    return (selected_ids(test_commands(env), suite), selection["basis"],
            len(selection.get("cached_entities", [])))


def run(root: Path, pythonpath: str, limit: int | None, exclude: str | None
        ) -> dict[str, Any]:
    from warpline.registry import call_tool

    os.environ["WARPLINE_EDGE_SOURCES"] = "builtin"
    recorded = pytest_run(root, pythonpath, "--warpline-record")
    if recorded.returncode != 0:
        raise SystemExit(f"the base suite does not pass:\n{recorded.stdout[-2000:]}")
    call_tool("capture_snapshot", {"repo": str(root)})
    collected = pytest_run(root, pythonpath, "--collect-only", "-p", "no:warpline")
    suite = [line for line in collected.stdout.splitlines() if "::" in line]
    base = git(root, "rev-parse", "HEAD").strip()
    rows = []
    chosen = [c for c in cached_in(root) if not exclude or exclude not in c[0]]
    for path, qualname, decorator in chosen[:limit]:
        text = (root / path).read_text()
        mutant = mutate(text, qualname)
        if mutant is None:
            continue
        (root / path).write_text(mutant)
        git(root, "commit", "-q", "-am", f"mutant {qualname}")
        truth = failing(root, pythonpath, suite)
        reverify(root, suite, widen=False)  # the range ingested: both timings warm
        started = time.perf_counter()
        before, _, _ = reverify(root, suite, widen=False)
        seconds_before = time.perf_counter() - started
        started = time.perf_counter()
        after, basis, cached = reverify(root, suite, widen=True)
        seconds_after = time.perf_counter() - started
        rows.append({"definition": f"{path}::{qualname}", "decorator": decorator,
                     "failing": len(truth), "basis": basis, "cached_entities": cached,
                     "selected_before": len(before), "selected_after": len(after),
                     "held_before": len(truth & before), "held_after": len(truth & after),
                     "reverify_s_before": round(seconds_before, 3),
                     "reverify_s_after": round(seconds_after, 3),
                     "missed_before": sorted(truth - before)[:5],
                     "missed_after": sorted(truth - after)[:5]})
        git(root, "reset", "-q", "--hard", base)
    return {"suite": len(suite), "mutants": rows, "summary": summarise(rows, len(suite))}


def summarise(rows: list[dict[str, Any]], suite: int) -> dict[str, Any]:
    killed = [r for r in rows if r["failing"]]
    failing = sum(r["failing"] for r in killed)

    def share(key: str) -> float:
        return round(sum(r[key] for r in killed) / (len(killed) * suite), 3) \
            if killed and suite else 0.0

    before, after = held(killed, "held_before"), held(killed, "held_after")
    return {"mutants": len(rows), "killed": len(killed), "failing_tests": failing,
            "all_failing_held_before": before[0], "all_failing_held_after": after[0],
            "recall_before": before[1], "recall_after": after[1],
            "selected_share_before": share("selected_before"),
            "selected_share_after": share("selected_after"),
            "reverify_s_median_before": _median([r["reverify_s_before"] for r in rows]),
            "reverify_s_median_after": _median([r["reverify_s_after"] for r in rows])}


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def census(clones: Sequence[str]) -> dict[str, Any]:
    out = {}
    for clone in clones:
        root = Path(clone)
        found = [(p, q, d) for p, q, d in cached_in(root)]
        vendored = [f for f in found if "/_vendor/" in f[0] or f[0].startswith("_vendor/")]
        decorators: dict[str, int] = {}
        for _, _, deco in found:
            decorators[deco] = decorators.get(deco, 0) + 1
        out[root.name] = {"cached_definitions": len(found), "vendored": len(vendored),
                          "own": len(found) - len(vendored), "decorators": decorators}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--project", help="a git clone whose suite passes offline "
                        "(default: the generated shop project)")
    parser.add_argument("--pythonpath", default=".", help="import root inside the project")
    parser.add_argument("--limit", type=int, help="at most this many mutants")
    parser.add_argument("--exclude", help="skip definitions whose path holds this")
    parser.add_argument("--pytest-args", default="", help="the suite's paths and options "
                        "for every run, e.g. \"tests/unit -m 'not network'\"")
    parser.add_argument("--census", nargs="+", metavar="CLONE",
                        help="only count the cached definitions of these clones")
    parser.add_argument("--json", type=Path, help="write the result here")
    args = parser.parse_args(argv)
    result: dict[str, Any]
    if args.census:
        result = {"census": census(args.census)}
    else:
        with tempfile.TemporaryDirectory(prefix="warpline-mutants-") as tmp:
            root = Path(tmp) / "project"
            if args.project:
                subprocess.run(["git", "clone", "-q", args.project, str(root)], check=True)
            else:
                _gen_cached.write(root)
            PYTEST_ARGS[:] = shlex.split(args.pytest_args)
            result = run(root, args.pythonpath, args.limit, args.exclude)
        for row in result["mutants"]:
            print(f"{row['definition']:55} @{row['decorator']:22} failing {row['failing']:3} "
                  f"held {row['held_before']:3} -> {row['held_after']:3} "
                  f"selected {row['selected_before']:3} -> {row['selected_after']:3}")
    print(json.dumps(result.get("summary", result.get("census")), indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
