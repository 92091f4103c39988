"""What impact radius and the re-verify worklist both do before answering: open the repo,
catch the store up, choose the graph, and collect the seeds. Asked with no range and no
changed entity, they answer for "my work" (``shared.mywork``), as ``changed`` does."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warpline.ingest.report import IngestReport
from warpline.service.impact.gcpause import gc_paused
from warpline.service.impact.graph_entities import EntityBook
from warpline.service.impact.graph_query import GraphView, open_graph
from warpline.service.impact.seeds import Seeds, collect, has_seed_arguments
from warpline.service.shared.context import RepoContext, behind_warning, catch_up, open_context
from warpline.service.shared.mywork import my_work_of


@dataclass(slots=True)
class GraphCall:
    """What every graph tool starts from: the context, the catch-up, the graph and the seeds."""
    ctx: RepoContext
    report: IngestReport
    warnings: list[str]
    view: GraphView
    seeds: Seeds
    params: Any = None  # the call's arguments; "my work" filled in when none named a change

    def unpack(self) -> tuple[RepoContext, IngestReport, list[str], GraphView, Seeds]:
        return self.ctx, self.report, self.warnings, self.view, self.seeds

    def book(self) -> EntityBook:
        """Entities on the wire (locators, SEIs, key ids) for this call's graph."""
        source = self.view.choice.row.source if self.view.choice else None
        return EntityBook(self.ctx, self.view.graph, self.seeds.items, source)


@contextmanager
def graph_call(params: Any, cwd: Path | None, *,
               range_answers: bool = False) -> Iterator[GraphCall]:
    """``range_answers``: the answer depends on the history of the range's commits only
    (impact), so a wholly ingested range is not partial however far behind the store is;
    otherwise (reverify's freshness reads each entity's latest change) it may be."""
    mine = not has_seed_arguments(params)
    with open_context(params.repo, cwd) as ctx, gc_paused():
        warnings: list[str] = []
        if mine:  # no range and no refs: my work, as ``changed`` (``shared.mywork``)
            work = my_work_of(ctx.repo)
            params = params.model_copy(update={"rev_range": work.rev_range,
                                               "include_worktree": work.include_worktree})
            warnings.append(f"{work.note}.")
        report = catch_up(ctx)
        filters = params.filters
        view = open_graph(ctx, filters.edge_kinds if filters else None, warnings)
        seeds = collect(ctx, params, warnings, view.graph)
        warnings[:0] = behind_warning(ctx, report,
                                      seeds.range_complete if range_answers else None)
        yield GraphCall(ctx, report, warnings, view, seeds, params)
