"""``go test`` runs warpline starts and watches: a recording (the map) and a selection.

* ``record``: every test under coverage (``gotest_coverage``), the map of what each
  executed (``recorded_map``: profiles -> lines -> entities, through
  ``warpline.testmap.entitymap``), and the run's watch state (each test's outcome).
* ``run``: the row's own command for ids (or the whole suite: ``go test ./...`` in every
  module), each invocation with ``-json`` added so each top-level test's outcome is read
  from ``go test``'s own report (``test2json`` events); the output is passed through to
  stderr as ``go test`` prints it.

Either way the caller writes the receipt (``warpline.runners.receipt``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pygit2

from warpline.runners import receipt_seal
from warpline.runners.gotest_command import (
    discover,
    invocation_argv,
    invocations,
    module_dir,
)
from warpline.runners.gotest_coverage import BASELINE, read_recording
from warpline.runners.gotest_coverage import record as record_profiles
from warpline.runners.receipt import RunWatchState, head_sha
from warpline.store.testmaps import RecordedMap

__all__ = ["SOURCE", "record", "recorded_map", "run"]

SOURCE = "go-cover"
RUN_TIMEOUT_S = 3 * 3600


def recorded_map(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
                 data: Path) -> RecordedMap:
    """The map of a directory ``gotest_coverage.record`` wrote, measured at ``commit``."""
    from warpline.runners.pytest_coverage import IMPORT_CONTEXT, recording_from_lines
    from warpline.testmap.entitymap import EntityMapper

    found = read_recording(root, data)
    lines = {(IMPORT_CONTEXT if context == BASELINE else context): files
             for context, files in found.lines.items()}
    mapper = EntityMapper(root.resolve(), repo, commit)
    recording = recording_from_lines(mapper, lines)
    recording.outcomes.update(found.outcomes)
    recording.dirty_paths |= mapper.dirty_paths
    recording.unmapped |= mapper.unmapped
    partial = [f"package {p} did not build" for p in found.broken]
    return recording.to_map(str(commit.id), SOURCE, found.version, "", found.collected,
                            partial)


def record(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
           jobs: int) -> tuple[RecordedMap, RunWatchState, int]:
    state = RunWatchState(commit_at_start=head_sha(repo), key=receipt_seal.for_run(root))
    with tempfile.TemporaryDirectory(prefix="warpline-gocover-") as scratch:
        record_profiles(root, Path(scratch), jobs=jobs)
        recorded = recorded_map(root, repo, commit, Path(scratch))
    for test_id, (_, outcome) in sorted(recorded.tests.items()):
        state.outcome(test_id, "failed" if outcome == "error" else outcome)
    state.collected = recorded.collected or len(recorded.tests)
    failed = any(o in ("failed", "error") for _, o in recorded.tests.values())
    return recorded, state, 1 if failed or recorded.partial else 0


def _names(root: Path) -> dict[tuple[str, str], str]:
    """(import path, test name) -> test id, for every test of the work tree's modules."""
    paths: dict[str, str | None] = {}
    out: dict[tuple[str, str], str] = {}
    for test in discover(root):
        directory = test.path.rpartition("/")[0]
        if directory not in paths:
            paths[directory] = _import_path(root, directory)
        import_path = paths[directory]
        if import_path is not None:
            out[(import_path, test.name)] = test.test_id
    return out


def _import_path(root: Path, directory: str) -> str | None:
    from warpline.lang.golang import module_name

    module = module_dir(root, directory)
    if module is None:
        return None

    class _Disk:
        def read(self, path: str) -> bytes | None:
            try:
                return (root / path).read_bytes() if (root / path).is_file() else None
            except OSError:
                return None

    return module_name(f"{directory}/x.go" if directory else "x.go", _Disk())


def run(root: Path, ids: Sequence[str] | None) -> tuple[RunWatchState, int]:
    """Run ``ids`` (None: every module's whole suite) and watch every top-level test."""
    from warpline.git.lookups import open_repository

    repo = open_repository(str(root))
    state = RunWatchState(commit_at_start=head_sha(repo) if repo is not None else None,
                          key=receipt_seal.for_run(root))
    if ids is None:
        modules = sorted({m for t in discover(root)
                          if (m := module_dir(root, t.path.rpartition("/")[0])) is not None})
        planned: list[tuple[str, str, str | None]] = [(m, "...", None) for m in modules]
    else:
        planned = invocations(root, ids)
    names = _names(root)
    status = 0
    for module, package, pattern in planned:
        argv = [*invocation_argv(package, pattern), "-json"]
        try:
            done = subprocess.run(argv, cwd=root / module if module else root,
                                  capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            print(f"warpline: {' '.join(argv)}: {exc}", file=sys.stderr)
            status = status or 1
            continue
        status = status or done.returncode
        sys.stderr.write(done.stderr)
        for line in done.stdout.splitlines():
            _event(line, names, state)
    state.collected = len(state.outcomes)
    return state, status


def _event(line: str, names: dict[tuple[str, str], str], state: RunWatchState) -> None:
    try:
        event = json.loads(line)
    except ValueError:
        sys.stderr.write(line + "\n")
        return
    if not isinstance(event, dict):
        return
    action, test = event.get("Action"), event.get("Test")
    if action == "output" and isinstance(event.get("Output"), str):
        sys.stderr.write(event["Output"])
    if action not in ("pass", "fail", "skip") or not isinstance(test, str) or "/" in test:
        return
    found = names.get((str(event.get("Package", "")), test))
    if found is not None:
        state.outcome(found, {"pass": "passed", "fail": "failed", "skip": "skipped"}[action])
