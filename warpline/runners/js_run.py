"""Runs warpline starts and watches for the JavaScript runners (a run's receipt): the
printed command's invocations, each with the runner's own machine-readable report added,
every test's outcome read from it.

* mocha: warpline's hook (``js/mocha_coverage.cjs``, outcomes only): each test's title
  path and state;
* Jest, Vitest: their JSON report (``--json`` / ``--reporter=json``, ``--outputFile``):
  ``ancestorTitles`` and ``title`` per test, a file that failed before any test as its file;
* AVA: ``--tap`` (``file › title`` lines, one file's titles bare);
* ``node --test``: each file's own outcome (TAP's top level).

Ids are the rows' own: ``<file>::<suite> > <test>``, a file for all of it.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from warpline import settings
from warpline.runners.js_detect import JsProject, projects
from warpline.runners.js_record import quiet_environment
from warpline.runners.receipt import RunWatchState, head_sha

__all__ = ["run_ids"]

RUN_TIMEOUT = 3600
_TAP = re.compile(r"^(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$")


def _whole(root: Path, runner: str) -> list[tuple[JsProject, list[str]]]:
    from warpline.runners.js_command import _kept_options

    out = []
    for project in projects(root):
        if project.runner != runner:
            continue
        words = list(project.call.env)
        if runner == "node-test":
            words += ["node", *_kept_options(project), "--test", *project.call.positional]
        else:
            program = ["vitest", "run"] if runner == "vitest" else list(project.call.program)
            words += ["npx", *program, *_kept_options(project), *project.call.positional]
        out.append((project, words))
    return out


def _reported(project: JsProject, words: list[str], out: Path) -> tuple[list[str], dict[str, str]]:
    from warpline.runners.js_record import HOOK

    runner = project.runner
    env: dict[str, str] = {}
    while words and "=" in words[0] and not words[0].startswith("-"):
        key, _, value = words[0].partition("=")
        env[key] = value
        words = words[1:]
    if runner == "mocha":
        at = words.index("mocha") + 1
        return [*words[:at], "--require", str(HOOK), *words[at:]], \
            {**env, settings.JS_COVERAGE_DIR: str(out)}
    if runner == "jest":
        return [*words, "--json", f"--outputFile={out}"], env
    if runner == "vitest":
        return [*words, "--reporter=json", f"--outputFile={out}"], env
    if runner == "ava":
        return [*words, "--tap"], env
    at = words.index("--test") + 1
    return [*words[:at], "--test-reporter=tap", *words[at:]], env


def _relative(project: JsProject, name: str) -> str:
    try:
        return Path(name).resolve().relative_to(project.root.resolve()).as_posix()
    except (ValueError, OSError):
        return name


def _read(project: JsProject, out: Path, stdout: str, state: RunWatchState,
          files: list[str]) -> None:
    runner = project.runner
    if runner == "mocha":
        for line in out.read_text().splitlines() if out.is_file() else []:
            record = json.loads(line)
            if record.get("titles") is not None:
                test_id = f"{_relative(project, record['file'])}::" + " > ".join(
                    t for t in record["titles"] if t)
                state.outcome(test_id, {"passed": "passed", "failed": "failed"}.get(
                    str(record.get("state")), "skipped"))
    elif runner in ("jest", "vitest"):
        try:
            report = json.loads(out.read_text())
        except (OSError, ValueError):
            report = {}
        for result in report.get("testResults", []):
            rel = _relative(project, result.get("name", ""))
            cases = result.get("assertionResults", [])
            if not cases and result.get("status") == "failed":
                state.outcome(rel, "failed")
            for case in cases:
                test_id = f"{rel}::" + " > ".join([*case.get("ancestorTitles", []),
                                                    case.get("title", "")])
                status = case.get("status")
                state.outcome(test_id, "passed" if status == "passed" else
                              "failed" if status == "failed" else "skipped")
    else:
        stems = {f.rsplit(".", 1)[0]: f for f in files}
        for line in stdout.splitlines():
            if runner == "node-test" and line.startswith(" "):
                continue  # a file's own tests: its top-level line says
            match = _TAP.match(line.strip())
            if match is None:
                continue
            outcome = "failed" if match.group(1) == "not ok" else \
                "skipped" if match.group(3) else "passed"
            text = match.group(2)
            if runner == "node-test":
                state.outcome(_relative(project, text), outcome)
                continue
            head, sep, title = text.partition(" › ")
            file = next((f for stem, f in stems.items() if stem.endswith(head)), None) \
                if sep else (files[0] if len(files) == 1 else None)
            test_id = f"{file}::{title if sep else text}" if file else text
            state.outcome(test_id, outcome)


def run_ids(root: Path, runner: str, ids: Sequence[str] | None) -> tuple[RunWatchState, int]:
    """Run ``ids`` (None: every package's whole suite) as the row's command does, each
    invocation with its report: the watch state and the first failing exit status."""
    import pygit2

    from warpline.runners import receipt_seal
    from warpline.runners.js_command import invocations
    from warpline.runners.js_record import _local_bin

    state = RunWatchState(commit_at_start=head_sha(pygit2.Repository(str(root))),
                          key=receipt_seal.for_run(root))
    planned = _whole(root, runner) if ids is None else invocations(root, runner, ids)[0]
    status = 0
    with tempfile.TemporaryDirectory(prefix="warpline-js-run-") as tmp:
        for index, (project, words) in enumerate(planned):
            out = Path(tmp) / f"report-{index}.json"
            argv, env = _reported(project, list(words), out)
            files = [f for f in (ids or []) if "::" not in f] + \
                sorted({i.split("::", 1)[0] for i in ids or []})
            environ = quiet_environment(env)
            try:
                done = subprocess.run(_local_bin(project, argv), cwd=project.path,
                                      env=environ, capture_output=True, text=True,
                                      timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
                code, stdout = done.returncode, done.stdout
            except (OSError, subprocess.TimeoutExpired):
                code, stdout = 124, ""
            _read(project, out, stdout, state, files or _files(project))
            status = status or code
    state.collected = len(state.outcomes)
    return state, status


def _files(project: JsProject) -> list[str]:
    from warpline.runners.js_files import test_files

    return test_files(project)
