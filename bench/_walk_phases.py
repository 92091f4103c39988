"""Where a walk's CPU goes, by phase: ``profile_walk.py --phases``.

Each phase is a few functions wrapped to add up their process time; a phase called from
inside another is subtracted from the outer one, so the shares add up to the walk. Unlike
cProfile, the wrappers cost little (a few calls per file version), so Python-heavy and
C-heavy phases are compared on equal terms.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

# (module, attribute, phase): later entries may nest inside earlier ones.
_PHASES = (
    ("warpline.git.attribution", "with_facts", "facts: rest (signatures' walk, cheap forms, keys)"),
    ("warpline.lang.tokenkey", "own_lines", "facts: own lines"),
    ("warpline.lang.tokenkey", "_stream", "facts: token walk"),
    ("warpline.git.attribution", "pair_definitions", "lineage (pair_definitions)"),
    ("warpline.git.attribution", "edited_changes", "diff mapping (edited_changes)"),
    ("warpline.git.attribution", "merge_changes", "merges"),
    ("warpline.lang.tsregions", "_whole", "records: query over the whole tree"),
    ("warpline.lang.tsregions", "_reread", "records: query over regions, keep and shift"),
    ("warpline.lang.tsregions", "_Map", "records: query over regions, keep and shift"),
)
_READERS = ("warpline.lang.java", "warpline.lang.rust", "warpline.lang.script",
            "warpline.lang.golang")


class Phases:
    """The wrappers installed, and the time each phase took (its own, nested phases out)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.inner: dict[str, float] = {}
        self._stack: list[str] = []

    def install(self) -> Phases:
        import importlib

        from warpline.lang import tokenkey

        for module, name, label in _PHASES:
            self._wrap(importlib.import_module(module), name, label)
        self._wrap(tokenkey._Tokens, "_root", "facts: parse of each definition alone")
        for module in _READERS:
            reader = importlib.import_module(module)
            self._wrap(reader, "records", "records: tree-sitter parse, tree edit, changed ranges")
            self._wrap(reader, "build", "build and nesting")
            self._wrap(reader, "_record", "records: captures read")
        return self

    def _wrap(self, owner: Any, name: str, label: str) -> None:
        if not hasattr(owner, name):  # a phase this build no longer has (facts in the walk)
            return
        inner: Callable[..., Any] = getattr(owner, name)
        stack, spent, nested = self._stack, self.spent, self.inner

        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.process_time()
            stack.append(label)
            try:
                return inner(*args, **kwargs)
            finally:
                stack.pop()
                took = time.process_time() - began
                spent[label] = spent.get(label, 0.0) + took
                if stack:
                    nested[stack[-1]] = nested.get(stack[-1], 0.0) + took

        setattr(owner, name, timed)

    def report(self, total: float) -> list[str]:
        own = {label: took - self.inner.get(label, 0.0) for label, took in self.spent.items()}
        rest = total - sum(own.values())
        rows = sorted(own.items(), key=lambda item: -item[1])
        rows.append(("rest: git (diffs, blobs, hunks, re-merges), caches, the loop", rest))
        return [f"  {label:62} {took:7.2f} s {100 * took / total if total else 0:5.1f} %"
                for label, took in rows]
