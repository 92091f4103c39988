"""Cosmetic changes in ``reverify``: a changed entity whose every change in the range is
cosmetic (comments, layout, docstrings — ``shared.nature``) is listed to inspect, asks for
no tests and reaches no dependents: its code did not change. A range of only such changes
asks for no tests at all, and says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warpline.lang import language_of
from warpline.service.impact.seeds import Seed
from warpline.service.testing.testselect import Selection

__all__ = ["MAX_NAMED", "CosmeticSplit", "inspection", "split"]

MAX_NAMED = 50
WHY = ("Only comments, whitespace, layout or docstrings changed (its code is the same; a "
       "docstring counts in a project that runs doctests): no test to run, read the change.")


@dataclass(slots=True)
class CosmeticSplit:
    """The seeds whose changes ask for tests (``active``) and the cosmetic ones."""
    active: list[Seed] = field(default_factory=list)
    cosmetic: set[str] = field(default_factory=set)

    @property
    def only_cosmetic(self) -> bool:
        return bool(self.cosmetic) and not self.active

    def selection(self) -> Selection:
        """The selection of a range whose every change is cosmetic: no tests."""
        out = Selection(basis="none", cosmetic_only=True)
        out.cosmetic = sorted(self.cosmetic)
        out.warnings.append(
            f"Every change here is cosmetic ({len(self.cosmetic)} entities: comments, "
            "whitespace, layout or docstrings only, their code unchanged): no tests to run. "
            "They are listed to inspect (nature cosmetic).")
        return out

    def note(self) -> list[str]:
        if not self.cosmetic or self.only_cosmetic:
            return []
        return [f"{len(self.cosmetic)} changed entities changed only cosmetically (comments, "
                "whitespace, layout or docstrings): listed to inspect, no tests are selected "
                "for them and their dependents are not listed."]


def split(seeds: list[Seed]) -> CosmeticSplit:
    """Cosmetic seeds apart; a file's seed goes with them when a language row reads the
    file and every one of its entity seeds is cosmetic (the file event restates them)."""
    out = CosmeticSplit()
    by_path: dict[str, list[Seed]] = {}
    for seed in seeds:
        if seed.kind != "file" and seed.path:
            by_path.setdefault(seed.path, []).append(seed)
    for seed in seeds:
        if seed.nature == "cosmetic":
            out.cosmetic.add(seed.locator)
        elif (seed.kind == "file" and seed.path and seed.path in by_path
              and language_of(seed.path) is not None
              and all(s.nature == "cosmetic" for s in by_path[seed.path])):
            out.cosmetic.add(seed.locator)  # restated by its cosmetic entities
        else:
            out.active.append(seed)
    return out


def inspection() -> list[dict[str, object]]:
    """A cosmetic item's only suggestion."""
    return [{"kind": "inspection", "command": None, "test": None, "distance": None,
             "callers": [], "why": WHY}]
