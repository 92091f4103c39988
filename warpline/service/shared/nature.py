"""What a change means on the wire: an entity event's ``nature`` from the facts the walker
recorded (``warpline.git.nature``) and the doctest rule, read from the repository at answer
time (docs/lineage.md "What a change means").

``nature`` is one of ``cosmetic`` (the definition's code is unchanged apart from comments,
layout and docstrings), ``signature`` (what callers write against changed: its name,
parameters, return type, generics), ``behavioural`` (any other change, and every added or
removed definition) or null: a file event (bytes, not a definition), or an event whose
facts were never recorded (written before this reading, a merge, a version no reader could
parse) — unknown, never guessed.

A docstring-only change is ``behavioural`` in a project that runs doctests: each runner row
says whether its project does (``Runner.runs_doctests``: pytest's reads ``--doctest-modules``
and the like from its configuration, ``runners/pytest_doctest.py``). Those files are read as
data; nothing of the repository runs. Only the standard library and the table of runners
(which imports nothing until asked) are imported here: churn's fast path uses it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["NATURES", "combined", "nature_of", "runs_doctests", "unknown_note"]

NATURES = ("cosmetic", "behavioural", "signature")



def nature_of(kind: str, change_kind: str, code_same: Any, docs_changed: Any,
              signature_changed: Any, doctests: bool) -> str | None:
    """The wire's ``nature`` of one event (the three facts as stored: 0, 1 or NULL)."""
    if kind == "file":
        return None
    if change_kind in ("added", "removed"):
        return "behavioural"
    if code_same is None or signature_changed is None:
        return None
    if signature_changed:
        return "signature"
    if code_same and not (docs_changed and doctests):
        return "cosmetic"
    return "behavioural"


def combined(natures: list[str | None]) -> str | None:
    """One entity's nature over several events (a range): signature over behavioural over
    unknown over cosmetic (cosmetic only when every event is)."""
    for nature in ("signature", "behavioural"):
        if nature in natures:
            return nature
    if not natures or None in natures:
        return None
    return "cosmetic"


def unknown_note(count: int) -> list[str]:
    if not count:
        return []
    return [f"{count} changed definitions here have an unknown nature (null): their events "
            "were recorded before warpline read what a change means (or in a merge, or a "
            "version no reader could parse). They count as changes. Re-recording the "
            "history (a fresh store: `warpline backfill` after moving "
            ".weft/warpline/warpline.db aside) fills in the events recorded before; a "
            "merge's and an unreadable version's stay unknown."]


def runs_doctests(root: Path) -> bool:
    """Whether the project's test runner runs the docstrings of its code as tests: asked
    of every runner row (``Runner.runs_doctests``; pytest's reads its config as data)."""
    from warpline.runners import RUNNERS

    return any(runner.runs_doctests(root) for runner in RUNNERS)
