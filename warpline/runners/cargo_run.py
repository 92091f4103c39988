"""``cargo test`` runs warpline starts and watches (``warpline run-tests``).

The row's own command for ids (or the whole suite), run as printed; each test's outcome is
read from libtest's own report (``test a::b ... ok|FAILED|ignored``) under cargo's
``Running <target> (<binary>)`` line, and matched to its id by the target's name and the
test's libtest name (the work tree's tests, ``cargo_tests.discover``). The output is passed
through to stderr as cargo prints it. The caller writes the receipt.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from warpline.runners import receipt_seal
from warpline.runners.cargo_command import command_lines, whole_suite
from warpline.runners.cargo_rules import split_id
from warpline.runners.receipt import RunWatchState, head_sha

__all__ = ["names", "run", "watch_line"]

RUN_TIMEOUT_S = 3 * 3600
_RUNNING = re.compile(r"^\s*Running (?:unittests )?(\S+) \((.+)\)\s*$")
_RESULT = re.compile(r"^test (\S+)(?: - should panic)? \.\.\. (ok|FAILED|ignored)(?:,.*)?$")
_OUTCOME = {"ok": "passed", "FAILED": "failed", "ignored": "skipped"}


def _binary_target(binary: str) -> str:
    """``target/debug/deps/grep_searcher-4a92…`` -> ``grep_searcher``."""
    stem = binary.rsplit("/", 1)[-1]
    return stem.rsplit("-", 1)[0] if "-" in stem else stem


def names(root: Path) -> dict[tuple[str, str], str]:
    """(target name with ``-`` as ``_``, libtest name) -> test id, in the work tree."""
    from warpline.runners.cargo_command import Disk, _files_of
    from warpline.runners.cargo_rules import package_dir
    from warpline.runners.cargo_tests import discover

    disk = Disk(root)
    memo: dict[str, object] = {}
    out: dict[tuple[str, str], str] = {}
    for test in discover(root):
        path, name = split_id(test.test_id)
        found = package_dir(path, disk.read)
        if found is None:
            continue
        files = _files_of(disk, found[0], found[1], memo)  # type: ignore[arg-type]
        placed = files.files.get(path)
        if placed is not None:
            out[(placed[0].name.replace("-", "_"), name)] = test.test_id
    return out


def watch_line(line: str, binary: list[str], known: dict[tuple[str, str], str],
               state: RunWatchState) -> None:
    running = _RUNNING.match(line)
    if running is not None:
        binary[:] = [_binary_target(running.group(2))]
        return
    result = _RESULT.match(line.strip())
    if result is None or not binary:
        return
    test_id = known.get((binary[0], result.group(1)))
    if test_id is not None:
        state.outcome(test_id, _OUTCOME[result.group(2)])


def run(root: Path, ids: Sequence[str] | None) -> tuple[RunWatchState, int]:
    """Run ``ids`` (None: the whole suite) as the row prints them, and watch each test."""
    from warpline.errors import InvalidArgument
    from warpline.git.lookups import open_repository
    from warpline.runners.cargo_command import detect

    if not detect(root):
        raise InvalidArgument(
            f"No Cargo.toml at {root} or below it: cargo cannot run here. Name the runner "
            "the repository uses (`--runner`), or run from the workspace's root.",
            field="runner", value="cargo")
    repo = open_repository(str(root))
    state = RunWatchState(commit_at_start=head_sha(repo) if repo is not None else None,
                          key=receipt_seal.for_run(root))
    # The whole suite runs every binary (cargo stops at the first failing one otherwise).
    lines = [f"{whole_suite(root)} --no-fail-fast"] if ids is None \
        else command_lines(root, ids)
    known = names(root)
    status = 0
    for line in lines:
        argv = shlex.split(line)
        try:
            done = subprocess.run(argv, cwd=root, capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            print(f"warpline: {line}: {exc}", file=sys.stderr)
            status = status or 1
            continue
        status = status or done.returncode
        binary: list[str] = []
        # cargo prints `Running …` on stderr and libtest its results on stdout: the two
        # streams are read in the order cargo runs the binaries (one at a time).
        sys.stderr.write(done.stderr)
        sys.stderr.write(done.stdout)
        _watch_streams(done.stderr, done.stdout, known, state, binary)
    state.collected = len(state.outcomes)
    return state, status


def _watch_streams(stderr: str, stdout: str, known: dict[tuple[str, str], str],
                   state: RunWatchState, binary: list[str]) -> None:
    """cargo's ``Running`` lines (stderr) and libtest's ``running N tests`` blocks
    (stdout) come in the same order: the n-th block belongs to the n-th binary."""
    binaries = [_binary_target(m.group(2)) for m in map(_RUNNING.match, stderr.splitlines())
                if m is not None]
    blocks = re.split(r"^running \d+ tests?$", stdout, flags=re.M)[1:]
    for target, block in zip(binaries, blocks, strict=False):
        binary[:] = [target]
        for line in block.splitlines():
            watch_line(line, binary, known, state)
