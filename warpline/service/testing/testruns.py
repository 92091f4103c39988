"""Runs warpline starts for a runner without a plugin (``go test``): a recording and a run.

* ``record_tests``: the whole suite under the runner's own coverage (the row's ``record``):
  the map is stored (``warpline.testmap.v1`` when it travels) and the run's receipt
  written, so ``warpline ci --record`` can back a pass with it.
* ``run_tests``: the whole suite, or the selection ``reverify`` answers (``select``: a range,
  ``""`` for the default one: the CI job's range in a job, else what changed), run as the
  row's command runs it (the row's ``run``), with the receipt of what ran: a selection's
  receipt names its basis and map, so a pass it backs is recorded as a selection.

Only rows the repository uses (``detect``) and that warpline can run (``record``/``run``)
answer; pytest records and selects through its plugin (``pytest --warpline-record``,
``--warpline-select``), which the error says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2

from warpline.errors import InvalidArgument
from warpline.runners import RUNNERS, Runner, by_name
from warpline.runners.receipt import selection_facts, write
from warpline.service.shared.context import open_context
from warpline.service.shared.own_files import own_paths
from warpline.store.testmaps import write_map

__all__ = ["record_tests", "run_tests"]


def _rows(root: Path, name: str | None, field: str) -> list[Runner]:
    able = [r for r in RUNNERS if getattr(r, field) is not None]
    if name is not None:
        found = by_name(name)
        if found is None or getattr(found, field) is None:
            raise InvalidArgument(
                f"warpline cannot {field} tests with runner {name!r}: use one of "
                f"{', '.join(r.name for r in able)} (pytest records and selects through its "
                "plugin: `pytest --warpline-record`, `pytest --warpline-select`).",
                field="runner", value=name)
        return [found]
    used = [r for r in able if r.detect(root)]
    if not used:
        looked = "; ".join(f"{r.name}: {', '.join(r.config_files)}" for r in able)
        raise InvalidArgument(
            f"No test runner warpline can {field} is used here (looked for {looked}). For "
            "pytest use its plugin: `pytest --warpline-record`, `pytest --warpline-select`.",
            field="runner", value=None)
    return used


def record_tests(repo: object, cwd: Path, runner: str | None = None,
                 jobs: int = 2) -> dict[str, Any]:
    """Record a map of the whole suite for each runner used (or ``runner``)."""
    with open_context(repo, cwd) as ctx:
        rows = _rows(ctx.root, runner, "record")
        if ctx.repo.head_is_unborn:
            raise InvalidArgument("The repository has no commit yet: a map describes a "
                                  "commit. Commit first.", field="repo", value=str(ctx.root))
        commit = ctx.repo.head.peel(pygit2.Commit)
        ours = own_paths(ctx.root, ctx.repo)
        out: list[dict[str, Any]] = []
        status = 0
        for row in rows:
            assert row.record is not None
            recorded, state, exit_status = row.record(ctx.root, ctx.repo, commit, jobs)
            stored = write_map(ctx.store, recorded)
            receipt = write(ctx.root, ctx.repo, state, exit_status, list(recorded.partial), "",
                            row, ours)
            status = status or exit_status
            out.append({"runner": row.name, "map_id": stored.id,
                        "commit_sha": stored.commit_sha, "source": stored.source,
                        "tracer_version": stored.tracer_version, "tests": stored.test_count,
                        "entities": stored.entity_count, "links": stored.hit_count,
                        "failed_tests": receipt.get("failed_tests", []),
                        "partial": stored.partial, "dirty_paths": stored.dirty_paths,
                        "exit_status": exit_status, "receipt_id": receipt["id"]})
    return {"records": out, "exit_status": status}


def run_tests(repo: object, cwd: Path, select: str | None = None,
              runner: str | None = None) -> dict[str, Any]:
    """Run the whole suite (``select`` None) or warpline's selection, and write receipts."""
    with open_context(repo, cwd) as ctx:
        root, git = ctx.root, ctx.repo
        rows = _rows(root, runner, "run")
        ours = own_paths(root, git)
    planned, rev_range, notes = _plan(root, git, select)
    out: list[dict[str, Any]] = []
    status = 0
    for row in rows:
        assert row.run is not None
        ids, narrowed = _ids(row, planned)
        if ids == []:
            out.append({"runner": row.name, "ran": False, "why": narrowed})
            continue
        state, exit_status = row.run(root, ids)
        if planned is not None and ids is not None:
            state.selection = selection_facts(planned["selection"], rev_range
                                              or planned["scope"])
        receipt = write(root, git, state, exit_status, [], "", row, ours)
        status = status or exit_status
        out.append({"runner": row.name, "ran": True, "tests": ids, "why": narrowed,
                    "exit_status": exit_status, "receipt": receipt})
    return {"runs": out, "notes": notes, "exit_status": status,
            "selection": planned["selection"] if planned is not None else None}


def _plan(root: Path, git: Any, select: str | None
          ) -> tuple[dict[str, Any] | None, str | None, list[str]]:
    """``(reverify's selection plan, its range, notes)``; no plan: the whole suite."""
    if select is None:
        return None, None, []
    from warpline.errors import InternalError
    from warpline.service.admin.ci import ci_rev_range
    from warpline.service.testing.select_plan import plan

    notes: list[str] = []
    rev_range: str | None = select or None
    if not select:
        found, why = ci_rev_range(root, git)
        if found is None and why:
            return None, None, [f"no selection ({why}); running every test."]
        if why:
            notes.append(why)
        rev_range = found or None
    try:
        planned = plan(root, rev_range)
    except InternalError as exc:
        return None, None, [f"no selection ({exc.hint}); running every test."]
    return planned, rev_range, [*notes, *planned["warnings"]]


def _ids(row: Runner, planned: dict[str, Any] | None) -> tuple[list[str] | None, str]:
    """The row's ids to run (None: its whole suite; []: none), and why."""
    if planned is None:
        return None, "the whole suite"
    selection = planned["selection"]
    if selection.get("cosmetic_only"):
        return [], "every change is cosmetic: no test to run"
    entry = next((e for e in selection.get("runners", []) if e.get("runner") == row.name),
                 None)
    if entry is None:
        return [], f"no change its {row.name} tests exercise"
    if entry.get("whole_suite"):
        return None, "no test is known to exercise the changes: the whole suite"
    return list(entry.get("tests", [])), f"the selection (basis {selection['basis']})"
