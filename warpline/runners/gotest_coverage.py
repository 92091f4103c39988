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

``record_lines`` returns ``context -> measured file -> executed lines`` (contexts are test
ids, ``""`` the baseline) and each test's outcome: what every row turns into a map.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from warpline.runners.gotest_command import discover, module_dir, quote_meta
from warpline.runners.gotest_rules import GoTest, runs_by_default

__all__ = ["BASELINE", "GoRecording", "go_version", "parse_profile", "record_lines"]

BASELINE = ""
TEST_TIMEOUT_S = 600
BUILD_TIMEOUT_S = 900
_BLOCK = re.compile(r"^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$")
_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)
_SKIP = re.compile(r"^--- SKIP: (\S+)", re.MULTILINE)

Counts = dict[tuple[str, int, int], int]  # (file, first line, last line) -> count


@dataclass(slots=True)
class GoRecording:
    """What one recording saw: per context, per measured file (absolute), the lines run;
    each test's outcome; the packages that did not build (their tests are ``error``)."""

    lines: dict[str, dict[str, set[int]]] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    collected: int = 0


def go_version(env: dict[str, str] | None = None) -> str:
    try:
        done = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True,
                              timeout=60, check=False, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return "go-unknown"
    return done.stdout.strip() or "go-unknown"


def parse_profile(text: str) -> Counts:
    """A ``-coverprofile`` (any mode) as block -> count, blocks summed over duplicates
    (a file measured by several packages' instrumentation appears once per block)."""
    counts: Counts = {}
    for line in text.splitlines()[1:]:
        found = _BLOCK.match(line.strip())
        if found is None:
            continue
        key = (found.group(1), int(found.group(2)), int(found.group(4)))
        counts[key] = counts.get(key, 0) + int(found.group(7))
    return counts


def _lines(counts: Counts, baseline: Counts, files: Callable[[str], str | None]
           ) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for (name, first, last), count in counts.items():
        if count - baseline.get((name, first, last), 0) <= 0:
            continue
        path = files(name)
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


def record_lines(root: Path, *, jobs: int = 2, env: dict[str, str] | None = None,
                 only: set[str] | None = None) -> GoRecording:
    """Run every test ``go test ./...`` runs in each module of the work tree at ``root``
    (``only``: just these test ids), one process per test, and collect its coverage."""
    tests = [t for t in discover(root) if runs_by_default(t.kind)
             and (only is None or t.test_id in only)]
    packages: dict[tuple[str, str], list[GoTest]] = {}
    for test in tests:
        directory = test.path.rpartition("/")[0]
        module = module_dir(root, directory)
        if module is not None:
            packages.setdefault((module, directory), []).append(test)
    out = GoRecording(collected=len(tests))
    with tempfile.TemporaryDirectory(prefix="warpline-gocover-") as scratch:
        for number, ((module, directory), members) in enumerate(sorted(packages.items())):
            module_path = _module_path(root, module)
            if module_path is None:
                continue
            work = Path(scratch) / str(number)
            work.mkdir()
            _package(root, module, module_path, directory, members, work, jobs, env, out)
    return out


def _package(root: Path, module: str, module_path: str, directory: str,
             members: list[GoTest], work: Path, jobs: int, env: dict[str, str] | None,
             out: GoRecording) -> None:
    module_root = root / module if module else root
    package = directory[len(module):].lstrip("/") if module else directory
    binary = work / "pkg.test"
    built = subprocess.run(
        ["go", "test", "-c", "-cover", "-covermode=count", "-coverpkg=./...", "-o",
         str(binary), f"./{package}" if package else "."],
        cwd=module_root, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
        check=False, env=env)
    if built.returncode != 0 or not binary.exists():
        out.broken.append(directory or ".")
        for test in members:
            out.outcomes[test.test_id] = "error"
        return

    def measured(name: str) -> str | None:
        if name == module_path or not name.startswith(module_path + "/"):
            return None
        return str(module_root / name[len(module_path) + 1:])

    cwd = root / directory if directory else root

    def run(pattern: str, profile: Path) -> tuple[int, str, Counts]:
        done = subprocess.run(
            [str(binary), f"-test.run={pattern}", "-test.count=1", "-test.v",
             "-test.paniconexit0", f"-test.coverprofile={profile}"],
            cwd=cwd, capture_output=True, text=True, timeout=TEST_TIMEOUT_S, check=False,
            env=env)
        try:
            text = profile.read_text(encoding="utf-8")
        except OSError:
            text = ""
        return done.returncode, done.stdout, parse_profile(text)

    _, _, baseline = run("^$", work / "baseline.out")
    before = _lines(baseline, {}, measured)
    if before:
        merged = out.lines.setdefault(BASELINE, {})
        for name, executed in before.items():
            merged.setdefault(name, set()).update(executed)

    def one(test: GoTest) -> tuple[GoTest, int, str, Counts]:
        status, stdout, counts = run(f"^{quote_meta(test.name)}$",
                                     work / f"{test.name}.out")
        return test, status, stdout, counts

    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        for test, status, stdout, counts in pool.map(one, members):
            skipped = test.name in _SKIP.findall(stdout)
            out.outcomes[test.test_id] = "failed" if status != 0 else (
                "skipped" if skipped else "passed")
            out.lines[test.test_id] = _lines(counts, baseline, measured)


def describe(root: Path) -> str:
    """The command this recording stands for, as a user would type it."""
    return f"warpline record-tests --repo {shlex.quote(str(root))}"


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 4))
