"""Per-test coverage from Go's own tooling: what each top-level test executed.

Per package with tests, one test binary is built with coverage of every package of its
module (``go test -c -cover -covermode=count -coverpkg=./...``), then run once per test
from the package's directory, as ``go test`` runs it:
``<bin> -test.run '^Name$' -test.count=1 -test.coverprofile=<file>``. A baseline run with
no test (``-test.run '^$'``) gives what runs before any test (package ``init``s, ``var``
initializers, ``TestMain``'s setup): its counts are subtracted from each test's, so a
block counts for a test only when the test itself ran it; what the baseline ran is the
map's ``at_import``.

Measured on cobra (bench/README.md): a ``-test.coverprofile`` per test costs ~15 ms; a
``-test.gocoverdir`` per test and ``go tool covdata textfmt`` to read it ~390 ms. So the
profile it is.

``record`` writes the profiles and an ``index.json`` (test id, outcome, profile) into a
directory; ``read_recording`` turns such a directory into ``context -> measured file ->
executed lines`` (contexts are test ids, ``""`` the baseline) and each test's outcome:
what every row turns into a map (``warpline import-coverage DIR --runner go`` reads a
directory recorded elsewhere).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warpline.errors import InvalidArgument
from warpline.runners.gotest_command import discover, module_dir, quote_meta
from warpline.runners.gotest_rules import GoTest, runs_by_default

__all__ = ["BASELINE", "GoRecording", "go_version", "parse_profile", "read_recording",
           "record"]

BASELINE = ""
TEST_TIMEOUT_S = 600
BUILD_TIMEOUT_S = 900
_BLOCK = re.compile(r"^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$")
_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)
_SKIP = re.compile(r"^--- SKIP: (\S+)", re.MULTILINE)
_OUTCOMES = frozenset({"passed", "failed", "skipped", "error"})

Counts = dict[tuple[str, int, int], int]  # (file, first line, last line) -> count


@dataclass(slots=True)
class GoRecording:
    """What one recording saw: per context, per measured file (absolute), the lines run;
    each test's outcome; the packages that did not build (their tests are ``error``)."""

    lines: dict[str, dict[str, set[int]]] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    collected: int = 0
    version: str = ""


def go_version(env: dict[str, str] | None = None) -> str:
    try:
        done = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True,
                              timeout=60, check=False, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return "go-unknown"
    return done.stdout.strip() or "go-unknown"


def parse_profile(text: str) -> Counts:
    """A ``-coverprofile`` (any mode) as block -> count of the blocks that ran, summed over
    duplicates (a file measured by several packages' instrumentation appears once per
    block). Blocks that never ran (most of a profile) are passed over unparsed."""
    counts: Counts = {}
    for line in text.splitlines()[1:]:
        if line.endswith(" 0"):
            continue
        found = _BLOCK.match(line.strip())
        if found is None:
            continue
        key = (found.group(1), int(found.group(2)), int(found.group(4)))
        counts[key] = counts.get(key, 0) + int(found.group(7))
    return counts


def _lines(counts: Counts, baseline: Counts, files: Callable[[str], str | None]
           ) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    paths: dict[str, str | None] = {}
    for (name, first, last), count in counts.items():
        if count - baseline.get((name, first, last), 0) <= 0:
            continue
        if name not in paths:
            paths[name] = files(name)
        path = paths[name]
        if path is not None:
            out.setdefault(path, set()).update(range(first, last + 1))
    return out


def _module_path(root: Path, module: str) -> str | None:
    try:
        text = (root / module / "go.mod").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = _MODULE.search(text)
    return found.group(1) if found else None


INDEX = "index.json"
MAX_INDEX_BYTES = 64 << 20
MAX_PROFILE_BYTES = 256 << 20


def record(root: Path, out: Path, *, jobs: int = 2, env: dict[str, str] | None = None,
           only: set[str] | None = None) -> dict[str, Any]:
    """Run every test ``go test ./...`` runs in each module of the work tree at ``root``
    (``only``: just these test ids), one process per test; write each test's profile and
    an ``index.json`` into the directory ``out``; return the index."""
    tests = [t for t in discover(root) if runs_by_default(t.kind)
             and (only is None or t.test_id in only)]
    packages: dict[tuple[str, str], list[GoTest]] = {}
    for test in tests:
        directory = test.path.rpartition("/")[0]
        module = module_dir(root, directory)
        if module is not None:
            packages.setdefault((module, directory), []).append(test)
    index: dict[str, Any] = {"version": go_version(env), "collected": len(tests),
                             "broken": [], "packages": []}
    for number, ((module, directory), members) in enumerate(sorted(packages.items())):
        module_path = _module_path(root, module)
        if module_path is None:
            continue
        work = out / f"p{number}"
        work.mkdir(parents=True, exist_ok=True)
        index["packages"].append(_package(root, module, module_path, directory, members, work,
                                          jobs, env, index))
    (out / INDEX).write_text(json.dumps(index, indent=1), encoding="utf-8")
    return index


def _package(root: Path, module: str, module_path: str, directory: str,
             members: list[GoTest], work: Path, jobs: int, env: dict[str, str] | None,
             index: dict[str, Any]) -> dict[str, Any]:
    module_root = root / module if module else root
    package = directory[len(module):].lstrip("/") if module else directory
    facts: dict[str, Any] = {"module_dir": module, "module_path": module_path,
                             "dir": directory, "baseline": None, "tests": []}
    binary = work / "pkg.test"
    built = subprocess.run(
        ["go", "test", "-c", "-cover", "-covermode=count", "-coverpkg=./...", "-o",
         str(binary), f"./{package}" if package else "."],
        cwd=module_root, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
        check=False, env=env)
    if built.returncode != 0 or not binary.exists():
        index["broken"].append(directory or ".")
        facts["tests"] = [{"id": t.test_id, "outcome": "error", "profile": None}
                          for t in members]
        return facts
    cwd = root / directory if directory else root

    def run(pattern: str, name: str) -> tuple[int, str]:
        done = subprocess.run(
            [str(binary), f"-test.run={pattern}", "-test.count=1", "-test.v",
             "-test.paniconexit0", f"-test.coverprofile={work / name}"],
            cwd=cwd, capture_output=True, text=True, timeout=TEST_TIMEOUT_S, check=False,
            env=env)
        return done.returncode, done.stdout

    run("^$", "baseline.out")
    facts["baseline"] = f"{work.name}/baseline.out"

    def one(item: tuple[int, GoTest]) -> dict[str, Any]:
        number, test = item
        status, stdout = run(f"^{quote_meta(test.name)}$", f"t{number}.out")
        skipped = test.name in _SKIP.findall(stdout)
        return {"id": test.test_id,
                "outcome": "failed" if status != 0 else ("skipped" if skipped else "passed"),
                "profile": f"{work.name}/t{number}.out"}

    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        facts["tests"] = list(pool.map(one, enumerate(members)))
    binary.unlink(missing_ok=True)
    return facts


def _profile(data: Path, name: str | None) -> Counts:
    if not name:
        return {}
    path = (data / name).resolve()
    try:
        path.relative_to(data.resolve())  # the index is data: never a path outside it
        if path.stat().st_size > MAX_PROFILE_BYTES:
            return {}
        return parse_profile(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return {}


def read_recording(root: Path, data: Path) -> GoRecording:
    """The lines each test ran, from a directory ``record`` wrote (``index.json`` and the
    profiles); ``InvalidArgument`` (field ``coverage_file``) for anything else."""
    try:
        raw = (data / INDEX).read_bytes() if (data / INDEX).stat().st_size <= MAX_INDEX_BYTES \
            else b""
        index = json.loads(raw.decode("utf-8"))
        packages = list(index["packages"])
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise InvalidArgument(
            f"{data} is not a directory of Go coverage profiles written by "
            "`warpline record-tests` (no readable index.json).", field="coverage_file",
            value=str(data)) from None
    out = GoRecording(collected=int(index.get("collected") or 0),
                      broken=[str(b) for b in index.get("broken", [])],
                      version=str(index.get("version") or "go-unknown"))
    for facts in packages:
        module_dir_ = str(facts.get("module_dir") or "")
        module_path = str(facts.get("module_path") or "")
        module_root = root / module_dir_ if module_dir_ else root

        def measured(name: str, module_path: str = module_path,
                     module_root: Path = module_root) -> str | None:
            if not module_path or not name.startswith(module_path + "/"):
                return None
            return str(module_root / name[len(module_path) + 1:])

        baseline = _profile(data, facts.get("baseline"))
        before = _lines(baseline, {}, measured)
        for name, executed in before.items():
            out.lines.setdefault(BASELINE, {}).setdefault(name, set()).update(executed)
        for test in facts.get("tests", []):
            test_id, outcome = str(test.get("id")), str(test.get("outcome"))
            out.outcomes[test_id] = outcome if outcome in _OUTCOMES else "unknown"
            out.lines[test_id] = _lines(_profile(data, test.get("profile")), baseline,
                                        measured)
    return out


def describe(root: Path) -> str:
    """The command this recording stands for, as a user would type it."""
    return f"warpline record-tests --repo {shlex.quote(str(root))}"


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 4))
