"""Scoring a test selection against the truth (per-test coverage), edit by edit.

``selected_ids`` turns what warpline tells an agent to run (the ``pytest ...`` commands of
a worklist's ``next_actions``) into the suite's node ids: a node id selects itself and its
parametrizations, a class or a file everything under it; options are ignored. A command
grouped per directory (``cd DIR && pytest ...``) is read relative to that directory.
``score`` compares that set with the truth for one edit; ``summarise`` aggregates.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def _pytest_args(command: str) -> list[tuple[str, list[str]]]:
    """``(directory, args)`` for every pytest invocation in a shell command line
    (``pytest ...``, ``python -m pytest ...``; ``(cd DIR && pytest ...)`` runs in DIR)."""
    found: list[tuple[str, list[str]]] = []
    stack: list[str] = []
    directory = ""
    segment: list[str] = []

    def flush() -> None:
        nonlocal directory
        words, segment[:] = list(segment), []
        if words[:1] == ["cd"] and len(words) == 2:
            directory = "" if words[1].strip("/") in ("", ".") else words[1].strip("/") + "/"
        elif words[:1] == ["pytest"]:
            found.append((directory, words[1:]))
        elif len(words) > 2 and words[1:3] == ["-m", "pytest"]:
            found.append((directory, words[3:]))

    for token in [*_tokens(command), ";"]:
        if token in ("&&", "||", ";", "|", "(", ")"):
            flush()
            if token == "(":
                stack.append(directory)
            elif token == ")" and stack:
                directory = stack.pop()
        else:
            segment.append(token)
    return found


def test_commands(envelope: dict[str, Any]) -> list[str]:
    commands = envelope.get("next_actions", {}).get("commands", [])
    return [c["command"] for c in commands if _pytest_args(c["command"])]


def selected_ids(commands: Iterable[str], suite: Sequence[str]) -> set[str]:
    targets: list[str] = []
    for command in commands:
        for directory, args in _pytest_args(command):
            skip = False
            for arg in args:
                if skip:
                    skip = False
                    continue
                if arg in ("-k", "-m", "-p", "--deselect", "-c", "--rootdir", "-n"):
                    skip = True
                    continue
                if arg.startswith("-"):
                    continue
                targets.append(directory + arg.rstrip("/"))
    chosen: set[str] = set()
    for target in targets:
        if "::" in target and "[" in target:
            chosen.update(i for i in suite if i == target)
        else:
            chosen.update(i for i in suite if i == target or i.startswith(target + "[")
                          or i.startswith(target + "::") or i.startswith(target + "/"))
    return chosen


@dataclass(slots=True)
class EditScore:
    locator: str
    truth: int
    selected: int
    hit: int
    recall: float
    seconds: float
    basis: str | None = None
    missed: list[str] = field(default_factory=list)


def score(locator: str, truth: set[str], selected: set[str], seconds: float,
          basis: str | None) -> EditScore:
    hit = truth & selected
    return EditScore(locator, len(truth), len(selected), len(hit),
                     len(hit) / len(truth) if truth else 1.0, seconds, basis,
                     sorted(truth - selected)[:5])


def summarise(scores: Sequence[EditScore], suite_size: int) -> dict[str, Any]:
    if not scores:
        return {"edits": 0}
    ratios = [s.selected / s.truth for s in scores if s.truth]
    bases: dict[str, int] = {}
    for s in scores:
        bases[str(s.basis)] = bases.get(str(s.basis), 0) + 1
    return {
        "edits": len(scores),
        "mean_recall": round(statistics.fmean(s.recall for s in scores), 3),
        "min_recall": round(min(s.recall for s in scores), 3),
        "edits_full_recall": sum(1 for s in scores if s.hit == s.truth),
        "edits_no_covering_test_hit": sum(1 for s in scores if s.hit == 0),
        "selection_over_truth_total": round(sum(s.selected for s in scores)
                                            / max(1, sum(s.truth for s in scores)), 3),
        "selection_over_truth_median": round(statistics.median(ratios), 3) if ratios else None,
        "mean_share_of_suite": round(statistics.fmean(s.selected for s in scores)
                                     / max(1, suite_size), 4),
        "truth_share_of_suite": round(statistics.fmean(s.truth for s in scores)
                                      / max(1, suite_size), 4),
        "reverify_s_median": round(statistics.median(s.seconds for s in scores), 3),
        "reverify_s_max": round(max(s.seconds for s in scores), 3),
        "bases": bases,
    }


def as_rows(scores: Sequence[EditScore]) -> list[dict[str, Any]]:
    return [asdict(s) for s in scores]


def held(killed: Sequence[dict[str, Any]], key: str,
         failing: str = "failing") -> tuple[int, float | None]:
    """Over mutants that made tests fail: how many had every failing test in a selection
    (``key``: the row's count of failing tests it held), and the recall over all failing
    tests (None without any)."""
    total = sum(r[failing] for r in killed)
    every = sum(r[key] == r[failing] for r in killed)
    return every, (round(sum(r[key] for r in killed) / total, 3) if total else None)


def timed(argv: list[str], root: Any, env: dict[str, str],
          timeout: float = 7200) -> tuple[float, float, int, str, str]:
    """Run ``argv`` in ``root``: (wall, CPU of children, exit status, stdout, stderr); a
    run past ``timeout`` is status -1."""
    import os
    import subprocess
    import time

    before = os.times()
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        out, err, status = done.stdout, done.stderr, done.returncode
    except subprocess.TimeoutExpired:
        out, err, status = "", "timeout", -1
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system
                                                          - before.children_system)
    return wall, cpu, status, out, err


def reverify_selection(root: Any, floor_module: Any, static: bool,
                       floor: bool = True) -> tuple[list[str], str]:
    """``reverify HEAD~1..HEAD``'s selection in process (its tests, its basis); with
    ``static`` the map is hidden (a clone without one), without ``floor`` the row's floor
    (``floor_module.floor``) is off: the graph's own answer."""
    from warpline.registry import call_tool
    from warpline.service.testing import testselect

    original = getattr(testselect, "choose_map")  # noqa: B009 (the name it calls, swapped)
    original_floor = getattr(floor_module, "floor")  # noqa: B009
    if static:
        setattr(testselect, "choose_map", lambda *args, **kwargs: None)  # noqa: B010
    if not floor:
        setattr(floor_module, "floor", lambda *args, **kwargs: [])  # noqa: B010
    try:
        env = call_tool("reverify", {"repo": str(root), "rev_range": "HEAD~1..HEAD"})
    finally:
        setattr(testselect, "choose_map", original)  # noqa: B010
        setattr(floor_module, "floor", original_floor)  # noqa: B010
    chosen = env["data"]["selection"]
    return list(chosen["tests"]), str(chosen["basis"])


def mutant_parser(doc: str | None) -> argparse.ArgumentParser:
    """The mutant benches' shared command line: a clone (or ``--tiny``), how many mutants,
    the seed that draws them, parallel jobs."""
    parser = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("clone", nargs="?", type=Path)
    parser.add_argument("--mutants", type=int, default=20)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tiny", action="store_true")
    return parser
