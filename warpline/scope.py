"""What a verification record proved: its scope, and how scopes compare.

A pass recorded from a test run says which run it was (and which runner ran it, a row of
``warpline.runners``): ``whole_suite`` (the runner ran the suite with nothing narrowed),
``selection`` (a narrower run: warpline's selection on a basis ``map``/``mixed``/
``static``/``none``, or the user's own narrowing, basis ``user``), ``attested``
(``verify-record``: an actor said so; warpline saw no run) and ``unknown`` (records made
before scopes existed). Scopes come from other machines through git notes, so ``parse``
accepts only this vocabulary and small, typed facts.

``rank`` orders the evidence one commit holds, strongest first, when several records of it
exist: a whole-suite pass over a map selection over a mixed one over an attestation over a
record of unknown scope over a selection on the static graph alone (which is known to miss
tests a run would catch).
"""

from __future__ import annotations

from typing import Any

EXTENTS = ("whole_suite", "selection", "attested", "unknown")
BASES = ("map", "mixed", "static", "none", "user")
_COUNTS = ("tests_collected", "tests_run", "tests_passed", "tests_failed", "tests_skipped")
_SELECTION_COUNTS = ("tests_selected", "tests_known")
_MAX_TEXT = 200
_MAX_REASONS = 5


def rank(extent: str, basis: str | None = None) -> int:
    if extent == "whole_suite":
        return 5
    if extent == "selection":
        return {"map": 4, "mixed": 3, "user": 2}.get(basis or "", 0)
    return {"attested": 2, "unknown": 1}.get(extent, 1)


def basis_of(run: dict[str, Any] | None) -> str | None:
    selection = (run or {}).get("selection")
    basis = selection.get("basis") if isinstance(selection, dict) else None
    return basis if isinstance(basis, str) else None


def _text(value: Any) -> str | None:
    return value[:_MAX_TEXT] if isinstance(value, str) and value else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else None


def parse(extent: Any, run: Any) -> tuple[str, dict[str, Any] | None]:
    """``(extent, run facts)`` from untrusted data; anything off the vocabulary is
    ``unknown`` with no facts (a made-up ``whole_suite`` without facts is not believed)."""
    if extent not in EXTENTS or extent == "unknown":
        return "unknown", None
    if extent == "attested":
        return "attested", None
    if not isinstance(run, dict):
        return "unknown", None
    rootdir = run.get("rootdir")
    facts: dict[str, Any] = {"tested_commit": _text(run.get("tested_commit")),
                             "runner": _text(run.get("runner")),
                             "rootdir": rootdir[:_MAX_TEXT] if isinstance(rootdir, str)
                             else None}
    for key in _COUNTS:
        facts[key] = _count(run.get(key))
    if facts["tested_commit"] is None or facts["tests_run"] is None:
        return "unknown", None
    selection = run.get("selection")
    if extent == "selection":
        if not isinstance(selection, dict) or selection.get("basis") not in BASES:
            return "unknown", None
        reasons = selection.get("reasons")
        facts["selection"] = {
            "basis": selection["basis"],
            "map_commit": _text(selection.get("map_commit")),
            "rev_range": _text(selection.get("rev_range")),
            **{key: _count(selection.get(key)) for key in _SELECTION_COUNTS},
            "reasons": [r[:_MAX_TEXT] for r in reasons[:_MAX_REASONS] if isinstance(r, str)]
            if isinstance(reasons, list) else [],
        }
    else:
        facts["selection"] = None
    return str(extent), facts


def describe(extent: str, run: dict[str, Any] | None) -> str:
    """A few words for a person: what the recorded run covered."""
    if extent == "whole_suite":
        return f"the whole suite ({(run or {}).get('tests_run')} tests)"
    if extent == "selection":
        selection = (run or {}).get("selection") or {}
        known = selection.get("tests_known")
        of = f" of {known} known" if known else ""
        return (f"a selection on basis {selection.get('basis')} "
                f"({(run or {}).get('tests_run')} tests run{of})")
    if extent == "attested":
        return "an attestation (no run seen by warpline)"
    return "a record of unknown scope"
