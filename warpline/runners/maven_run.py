"""Maven runs warpline starts and watches (``warpline run-tests``): the row's own command
lines for the ids (``maven_command.command_lines``, run as printed), or each build's whole
suite (``mvn test``), and each test's outcome read back from the XML reports Surefire wrote
during the run (``target/surefire-reports/TEST-*.xml`` of every Maven project; reports older
than the run are another run's). Maven's output is passed through to stderr.

The caller writes the receipt (``warpline.runners.receipt``).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from warpline.runners import receipt_seal
from warpline.runners.maven_command import command_lines, projects_in
from warpline.runners.maven_jacoco import test_id
from warpline.runners.maven_rules import JavaProject
from warpline.runners.receipt import RunWatchState, head_sha

__all__ = ["read_reports", "run", "whole_suite_lines"]

RUN_TIMEOUT_S = 3 * 3600
_MAX_REPORT = 32 << 20
_CLASS_LEVEL = frozenset({"", "initializationError", "classMethod"})
_DECORATION = re.compile(r"[(\[].*$", re.S)  # ``m()``, ``m(int)[1]``, ``m[0]``


def whole_suite_lines(projects: list[JavaProject]) -> list[str]:
    """Each Maven build's whole suite: the root's (a reactor runs its modules), else one
    per top-level project below it."""
    maven = [p for p in projects if p.tool == "maven"]
    root = next((p for p in maven if p.directory == ""), None)
    if root is not None:
        return [f"{'./mvnw' if root.wrapper else 'mvn'} test"]
    tops = [p for p in maven if not any(o is not p and p.directory.startswith(f"{o.directory}/")
                                        for o in maven)]
    return [f"(cd {shlex.quote(p.directory)} && {'./mvnw' if p.wrapper else 'mvn'} test)"
            for p in sorted(tops, key=lambda p: p.directory)]


def run(root: Path, ids: Sequence[str] | None) -> tuple[RunWatchState, int]:
    """Run ``ids`` (None: every build's whole suite) and watch every test."""
    from warpline.git.lookups import open_repository

    repo = open_repository(str(root))
    state = RunWatchState(commit_at_start=head_sha(repo) if repo is not None else None,
                          key=receipt_seal.for_run(root))
    projects = projects_in(root)
    lines = whole_suite_lines(projects) if ids is None else command_lines(root, list(ids))
    status = 0
    started = time.time() - 1
    for line in lines:
        try:
            done = subprocess.run(line, shell=True, cwd=root, capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            print(f"warpline: {line}: {exc}", file=sys.stderr)
            status = status or 1
            continue
        sys.stderr.write(done.stdout)
        sys.stderr.write(done.stderr)
        status = status or done.returncode
    for found, outcome in read_reports(root, projects, started).items():
        state.outcome(found, outcome)
    state.collected = len(state.outcomes)
    return state, status


def read_reports(root: Path, projects: list[JavaProject], since: float) -> dict[str, str]:
    """Test id -> passed|failed|skipped from the Surefire reports written since ``since``."""
    out: dict[str, str] = {}
    for project in projects:
        if project.tool != "maven" or project.aggregator:
            continue
        reports = root / project.directory / "target" / "surefire-reports"
        if reports.is_symlink() or not reports.is_dir():
            continue
        for report in sorted(reports.glob("TEST-*.xml")):
            try:
                if report.is_symlink() or report.stat().st_mtime < since \
                        or report.stat().st_size > _MAX_REPORT:
                    continue
                tree = ET.parse(report)
            except (OSError, ET.ParseError):
                continue
            for case in tree.iter("testcase"):
                _case(root, project, case, out)
    return out


def _case(root: Path, project: JavaProject, case: ET.Element, out: dict[str, str]) -> None:
    cls = case.get("classname") or ""
    method = _DECORATION.sub("", case.get("name") or "")
    if method in _CLASS_LEVEL or method == cls:
        method = ""  # a class-level failure: its class
    found = test_id(project, root, f"{cls}#{method}" if method else cls)
    if found is None:
        return
    tags = {child.tag for child in case}
    outcome = "failed" if tags & {"failure", "error"} else \
        "skipped" if "skipped" in tags else "passed"
    if outcome == "failed" or out.get(found) != "failed":
        out[found] = outcome
