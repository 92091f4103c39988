"""An answer reads the facts of what its events' changes mean before it shows them.

The backfill stores events without those facts; the events an answer reads (its range,
its lineages, its page) have them read here, within ``WARPLINE_INTERACTIVE_BUDGET_S``, and
kept (``warpline.ingest.facts``). A store with nothing pending answers from one indexed
count, without git. What the budget leaves is still unknown (nature null): the answer
says so, and a background pass reads the rest (``background.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from warpline import settings
from warpline.service.shared.context import RepoContext
from warpline.store.eventfacts import count_pending

__all__ = ["read_facts"]


def read_facts(ctx: RepoContext, *, shas: Sequence[str] | None = None,
               lineages: Iterable[int] | None = None,
               events: Iterable[int] | None = None) -> tuple[int, list[str]]:
    """Read the pending facts of the events in scope (every stored event when no scope
    is given): how many were read, and the warnings for those left unknown."""
    lineage_list = None if lineages is None else list(lineages)
    event_list = None if events is None else list(events)
    if not count_pending(ctx.store, shas=shas, lineages=lineage_list, events=event_list):
        return 0, []
    from warpline.ingest.facts import fill

    budget = settings.interactive_budget_s()
    report = fill(ctx.store, ctx.repo, shas=shas, lineages=lineage_list, events=event_list,
                  budget_s=budget)
    if not report.left:
        return report.read, []
    from warpline.service.shared.background import continue_backfill

    running = report.unwritable is None and continue_backfill(ctx.root,
                                                              ctx.store.path.parent)
    if report.unwritable is not None:
        why = f"the store cannot be written ({report.unwritable})"
    elif report.projected_s is not None:
        why = (f"reading them all would take about {report.projected_s:.1f} s, past this "
               f"answer's budget of {budget:g} s")
    else:
        why = "this answer's budget ran out"
    then = ("a background pass is reading them now: ask again later" if running else
            f"ask again, or run `warpline backfill --facts --repo {ctx.root}` to read "
            "them all now")
    return report.read, [
        f"What {report.left} changed definitions' changes mean is not read yet ({why}): "
        "their nature is null here and they count as changes (never as cosmetic); "
        f"{then}."]
