"""A map from the runner's own V8 coverage, for the JavaScript runners.

Mocha runs its whole suite once, in one process, with warpline's hook
(``js/mocha_coverage.cjs``: V8's precise coverage through the inspector, taken around each
test): a per-test map, ids ``<file>::<suite> > <test>``. The other runners run each test
file alone (its printed whole-file command), under coverage, for a per-file map:

* Jest: ``--coverage --coverageProvider=v8 --coverageReporters=json`` (Jest maps V8's
  ranges through its transform's source maps: Babel, ts-jest);
* Vitest: ``--coverage.provider=v8 --coverage.reporter=json`` (the project's
  ``@vitest/coverage-v8``, the version of its ``vitest``);
* Mocha, AVA, ``node --test``: ``NODE_V8_COVERAGE`` (every process the run starts writes
  its own file; Node's ``source-map-cache`` maps code a loader transformed: ``tsx``).

A file's run's executed lines become entities (``testmap/entitymap.py``); its map tests
are the test files (``<file>`` ids: every test in it), each passed or failed as its run
exited. What a file's run executes is what its tests and its module-level code execute.
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from warpline import settings
from warpline.runners.js_detect import JsProject, projects
from warpline.runners.receipt import RunWatchState
from warpline.store.testmaps import RecordedMap

__all__ = ["FileRun", "record_runner", "run_file"]

FILE_TIMEOUT = 900
_COMMENT = ("//", "/*", "*")


@dataclass(slots=True)
class FileRun:
    """One test file's run under coverage."""

    file: str
    exit_status: int
    lines: dict[str, set[int]] = field(default_factory=dict)  # absolute path -> lines
    error: str = ""


def coverage_words(project: JsProject, out: Path) -> tuple[list[str], dict[str, str]]:
    """The options and environment that make the runner write coverage into ``out``."""
    runner = project.runner
    if runner == "jest":
        return ["--coverage", "--coverageProvider=v8", "--coverageReporters=json",
                f"--coverageDirectory={out}"], {}
    if runner == "vitest":
        return ["--coverage.enabled=true", "--coverage.provider=v8",
                "--coverage.reporter=json", f"--coverage.reportsDirectory={out}",
                "--coverage.all=false", "--coverage.thresholds.lines=0",
                "--coverage.reportOnFailure=true"], {}
    return [], {"NODE_V8_COVERAGE": str(out)}


def file_command(project: JsProject, file: str, out: Path) -> tuple[list[str], dict[str, str]]:
    """The whole-file command for ``file`` with coverage into ``out``."""
    from warpline.runners.js_command import _invocation, _suite

    words = _invocation(project, [file], None, _suite(project))
    extra, env = coverage_words(project, out)
    if project.runner == "node-test":
        at = words.index("--test")
        words[at:at] = extra
    else:
        words += extra
    assigned: dict[str, str] = {}
    while words and "=" in words[0] and not words[0].startswith("-"):
        key, _, value = words.pop(0).partition("=")
        assigned[key] = value
    return words, {**assigned, **env}


def run_file(project: JsProject, file: str, workdir: Path) -> FileRun:
    """Run ``file`` alone under coverage and read what it executed."""
    from warpline.runners.js_istanbul import read_istanbul
    from warpline.runners.js_v8 import read_coverage_dir

    out = workdir / f"cov-{abs(hash(file))}"
    out.mkdir(parents=True, exist_ok=True)
    words, env = file_command(project, file, out)
    words = _local_bin(project, words)
    environ = quiet_environment(env)
    try:
        done = subprocess.run(words, cwd=project.path, env=environ, capture_output=True,
                              text=True, timeout=FILE_TIMEOUT, stdin=subprocess.DEVNULL)
        status, error = done.returncode, done.stderr[-2000:]
    except (OSError, subprocess.TimeoutExpired) as exc:
        return FileRun(file, 124, {}, f"{shlex.join(words)}: {exc}")
    if project.runner in ("jest", "vitest"):
        lines = read_istanbul(out / "coverage-final.json")
    else:
        lines = read_coverage_dir(out, project.path)
    return FileRun(file, status, lines, "" if lines else error)


def _code_lines(path: str, lines: set[int]) -> set[int]:
    """``lines`` less the file's blank and comment lines (a definition's leading comment
    is not its code)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return lines
    return {n for n in lines if 0 < n <= len(text)
            and text[n - 1].strip() and not text[n - 1].lstrip().startswith(_COMMENT)}


HOOK = Path(__file__).parent / "js" / "mocha_coverage.cjs"


def _local_bin(project: JsProject, words: list[str]) -> list[str]:
    """``npx prog`` as the package's own ``node_modules/.bin/prog`` where it is there
    (npx's own start-up, once per file, is most of a small file's run)."""
    if len(words) > 1 and words[0] == "npx":
        for base in (project.path, project.root):
            local = base / "node_modules" / ".bin" / words[1]
            if local.is_file():
                return [str(local), *words[2:]]
    return words


def quiet_environment(env: dict[str, str]) -> dict[str, str]:
    """A JS runner's environment: this process's, as CI without colour, plus ``env``."""
    return {**settings.child_environment(), "CI": "1", "FORCE_COLOR": "0", "NO_COLOR": "1",
            **env}


def mocha_suite(project: JsProject, out: Path) -> tuple[list[str], dict[str, str]]:
    """The package's whole mocha suite with warpline's per-test hook."""
    from warpline.runners.js_command import _kept_options

    words = [*_local_bin(project, ["npx", "mocha"]), *_kept_options(project),
             "--require", str(HOOK), *project.call.positional]
    env = dict(w.split("=", 1) for w in project.call.env)
    return words, {**env, settings.JS_COVERAGE_DIR: str(out),
                   settings.JS_ROOT: str(project.path)}


def _mocha(project: JsProject, work: Path) -> tuple[dict[str, dict[str, set[int]]],
                                                    dict[str, str], dict[str, set[int]], int,
                                                    str]:
    from warpline.runners.js_v8 import read_per_test

    out = work / f"mocha-{abs(hash(project.dir))}.jsonl"
    words, env = mocha_suite(project, out)
    environ = quiet_environment(env)
    try:
        done = subprocess.run(words, cwd=project.path, env=environ, capture_output=True,
                              text=True, timeout=FILE_TIMEOUT * 4, stdin=subprocess.DEVNULL)
        status, error = done.returncode, done.stderr[-2000:]
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {}, {}, {}, 124, str(exc)
    per_test, outcomes, outside = read_per_test(out, project.path, project.root)
    return per_test, outcomes, outside, status, error


def record_runner(root: Path, repo: pygit2.Repository, commit: pygit2.Commit, jobs: int,
                  runner: str) -> tuple[RecordedMap, dict[str, str], int, list[str]]:
    """The whole suite of every package using ``runner`` under coverage: ``(the map, test
    id -> outcome, exit status, why it is partial)``."""
    from warpline.runners.js_files import test_files
    from warpline.runners.pytest_coverage import IMPORT_CONTEXT, recording_from_lines
    from warpline.testmap.entitymap import EntityMapper

    lines: dict[str, dict[str, set[int]]] = {}
    outcomes: dict[str, str] = {}
    partial: list[str] = []
    status = 0
    mine = [p for p in projects(root) if p.runner == runner]
    with tempfile.TemporaryDirectory(prefix="warpline-js-") as tmp:
        work = Path(tmp)
        if runner == "mocha":
            for project in mine:
                per_test, found, outside, code, error = _mocha(project, work)
                status = status or code
                lines.update(per_test)
                outcomes.update(found)
                shared = lines.setdefault(IMPORT_CONTEXT, {})
                for path, ran in outside.items():
                    shared.setdefault(path, set()).update(ran)
                if not per_test:
                    partial.append(f"{project.dir or '.'}: mocha ran no test under "
                                   f"coverage ({error[-300:].strip()})")
        else:
            tasks = [(p, f) for p in mine for f in test_files(p)]
            with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
                runs = list(pool.map(lambda task: run_file(task[0], task[1], work), tasks))
            for run in runs:
                outcomes[run.file] = "passed" if run.exit_status == 0 else "failed"
                lines[run.file] = run.lines
                if not run.lines:
                    partial.append(f"{run.file}: no coverage was written "
                                   f"({run.error[-300:].strip()})")
            status = 0 if all(o == "passed" for o in outcomes.values()) else 1
    lines = {context: {path: _code_lines(path, found) for path, found in files.items()}
             for context, files in lines.items()}
    mapper = EntityMapper(root, repo, commit)
    recording = recording_from_lines(mapper, lines)
    for test_id, outcome in outcomes.items():
        recording.outcomes[test_id] = outcome
        recording.hits.setdefault(test_id, set())
    recorded = recording.to_map(str(commit.id), f"{runner}-v8", _version(root, runner), "",
                                len(outcomes), partial[:20])
    return recorded, outcomes, status, partial


def _version(root: Path, runner: str) -> str:
    from warpline.runners.js_config import package_json

    package = {"node-test": None}.get(runner, runner)
    if package is None:
        return f"node {settings.node_version()}".strip()
    found = package_json(root / "node_modules" / package) or {}
    return f"{runner} {found.get('version', '?')} (v8 coverage)"


def record(root: Path, repo: pygit2.Repository, commit: pygit2.Commit, jobs: int,
           runner: str) -> tuple[RecordedMap, RunWatchState, int]:
    """``record_runner`` as a run's watch state (its receipt): ``(map, state, status)``."""
    from warpline.runners import receipt_seal

    key = receipt_seal.for_run(root)  # read before the tests start, as every run's
    recorded, outcomes, status, _ = record_runner(root, repo, commit, jobs, runner)
    state = RunWatchState(commit_at_start=str(commit.id), key=key)
    for test_id, outcome in outcomes.items():
        state.outcome(test_id, outcome)
    state.collected = len(outcomes)
    return recorded, state, status
