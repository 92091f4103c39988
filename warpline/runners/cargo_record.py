"""``warpline record-tests`` for cargo: the map from LLVM coverage, and its watch state.

The recording (``cargo_coverage``) names each test by its binary and libtest name; the
binary's target and the test's module path name its file (the work tree's targets,
``cargo_rules.target_files``): ``<file>::<libtest name>``, the row's id. Lines become
entities through ``testmap.entitymap`` as every row's do.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from warpline.runners import receipt_seal
from warpline.runners.cargo_command import Disk, _files_of
from warpline.runners.cargo_coverage import Binary, CargoRecording
from warpline.runners.cargo_coverage import record as record_coverage
from warpline.runners.cargo_rules import TargetFiles, package_dir
from warpline.runners.receipt import RunWatchState, head_sha
from warpline.store.testmaps import RecordedMap

__all__ = ["SOURCE", "record", "recorded_map", "test_id"]

SOURCE = "cargo-llvm-cov"


def test_id(root: Path, binary: Binary, name: str, memo: dict[str, TargetFiles]) -> str:
    """``<file>::<name>``: the file of the longest module path of ``name`` among the
    binary's target's files (its root file when none)."""
    disk = Disk(root)
    found = package_dir(binary.src_path, disk.read)
    if found is None:
        return f"{binary.src_path}::{name}"
    files = _files_of(disk, found[0], found[1], memo)
    parts = tuple(name.split("::"))
    best, best_len = binary.src_path, -1
    for path, (target, modpath) in files.files.items():
        if target.root != binary.src_path:
            continue
        if len(modpath) > best_len and parts[: len(modpath)] == modpath \
                and len(modpath) < len(parts):
            best, best_len = path, len(modpath)
    return f"{best}::{name}"


def recorded_map(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
                 found: CargoRecording) -> RecordedMap:
    from warpline.runners.pytest_coverage import recording_from_lines
    from warpline.testmap.entitymap import EntityMapper

    memo: dict[str, TargetFiles] = {}
    ids = {key: test_id(root, found.binaries[key[0]], key[1], memo)
           for key in {*found.lines, *found.outcomes}}
    lines = {ids[key]: files for key, files in found.lines.items()}
    mapper = EntityMapper(root.resolve(), repo, commit)
    recording = recording_from_lines(mapper, lines)
    for key, outcome in found.outcomes.items():
        recording.outcomes[ids[key]] = outcome
    recording.dirty_paths |= mapper.dirty_paths
    recording.unmapped |= mapper.unmapped
    partial = [f"the test build failed: {b}" for b in found.broken]
    return recording.to_map(str(commit.id), SOURCE, found.version, "", len(ids), partial)


def record(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
           jobs: int) -> tuple[RecordedMap, RunWatchState, int]:
    from warpline.errors import InvalidArgument
    from warpline.runners.cargo_command import detect

    if not detect(root):
        raise InvalidArgument(
            f"No Cargo.toml at {root} or below it: cargo cannot run here. Name the runner "
            "the repository uses (`--runner`), or run from the workspace's root.",
            field="runner", value="cargo")
    state = RunWatchState(commit_at_start=head_sha(repo), key=receipt_seal.for_run(root))
    found = record_coverage(root, jobs=jobs)
    recorded = recorded_map(root, repo, commit, found)
    for test, (_, outcome) in sorted(recorded.tests.items()):
        state.outcome(test, "failed" if outcome == "error" else outcome)
    state.collected = recorded.collected or len(recorded.tests)
    failed = any(o in ("failed", "error") for _, o in recorded.tests.values())
    return recorded, state, 1 if failed or recorded.partial else 0
