"""``warpline_change_list`` / ``changed``: which entities changed in a revision range."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warpline.git.repo import head_commit
from warpline.models import ChangeListEnvelope
from warpline.models.inputs import ChangeListInput
from warpline.models.wire import language_fields
from warpline.service.history import events_query as eq
from warpline.service.history.ranges import commits_of_range
from warpline.service.shared.context import (
    RepoContext,
    behind_warning,
    catch_up,
    ingest_status,
    open_context,
    worktree_hashes,
)
from warpline.service.shared.envelope import envelope
from warpline.service.shared.facts import read_facts
from warpline.service.shared.mywork import default_range
from warpline.service.shared.nature import nature_of, runs_doctests
from warpline.service.shared.next_actions import follow_ups
from warpline.service.shared.paging import Pager
from warpline.store.events import Where, select_events

TOOL = "warpline_change_list"
# Bounded argument lists in next_actions and data.changed_refs.
MAX_REFS = 200


def change_list(params: ChangeListInput, cwd: Path | None) -> dict[str, Any]:
    with open_context(params.repo, cwd) as ctx:
        report = catch_up(ctx)
        range_warnings: list[str] = []
        rev_range, include_worktree = params.rev_range, params.include_worktree
        work = default_range(ctx.repo, rev_range, params.base_ref, params.head_ref,
                             params.all_history)
        if work is not None:
            rev_range, include_worktree = work.rev_range, work.include_worktree
            range_warnings.append(f"{work.note}; all_history (--all) lists every commit.")
        shas, range_info = commits_of_range(
            ctx, range_warnings, rev_range=rev_range, base_ref=params.base_ref,
            head_ref=params.head_ref, spent=report.commits_behind > 0,
            worktree=include_worktree)
        range_complete = None if shas is None else not range_warnings
        warnings = behind_warning(ctx, report, range_complete) + range_warnings
        range_text = range_info["rev_range"]
        where = eq.where_from_filters(params.filters)
        where.doctests = runs_doctests(ctx.root)
        where.skip_cosmetic = params.skip_cosmetic
        sort_by, order = params.sort_by, params.sort_order
        pager = Pager.of(params)
        if where.skip_cosmetic:  # what every change in scope means decides what is left
            warnings.extend(read_facts(ctx, shas=shas)[1])
        rows, total = select_events(ctx.store, shas, where, sort_by, order,
                                       pager.end + 1)
        if not where.skip_cosmetic:  # what the changes shown mean, read if not yet
            read, more = read_facts(ctx, events=[row[0] for row in rows])
            warnings.extend(more)
            if read:
                rows, total = select_events(ctx.store, shas, where, sort_by, order,
                                            pager.end + 1)
        warnings.extend(eq.range_notes(ctx.store, shas))
        items = [eq.item_from_row(row, where.doctests) for row in rows]
        if include_worktree:
            items.extend(_worktree_items(ctx, where))
            items = eq.sort_items(items, sort_by, order)
            total += sum(1 for item in items if item["origin"] == "worktree")
        page_items = pager.cut(items)
        warnings.extend(eq.unknown_natures(page_items))
        refs, key_ids, truncated = eq.distinct_refs(ctx.store, shas, where, items,
                                                    MAX_REFS)
        if truncated:
            warnings.append(f"More than {MAX_REFS} entities changed; `changed_refs` lists the "
                            f"first {MAX_REFS}. Narrow the range or filters to see all.")
        warnings.extend(eq.unread_language_note(refs))
        data = {
            "items": page_items,
            "changed_refs": refs,
            "changed_entity_key_ids": key_ids,
            "range": range_info,
            "ingest": ingest_status(ctx, report, range_complete),
            "total": total,
            "page": pager.wire(total),
        }
        actions: dict[str, Any] = {}
        if params.include_next_actions:
            actions = follow_ups(ctx.root, range_text, include_worktree, refs,
                                 report.commits_behind, _page_range(ctx, page_items, shas))
            if not total:  # nothing changed proposes nothing to re-verify (an empty
                actions.pop("tools", None)  # range's warning says what to pass instead)
        any_sei = any(item["entity"]["sei"] for item in page_items)
        return envelope(
            model=ChangeListEnvelope, tool=TOOL, repo=ctx.root, params=params, data=data,
            filters=where.echo(), sort={"by": sort_by, "order": order},
            page={"limit": params.limit, "cursor": params.cursor}, warnings=warnings,
            next_actions=actions, enrichment={"sei": "present" if any_sei else "absent"},
        )


def _worktree_items(ctx: RepoContext, where: Where) -> list[dict[str, Any]]:
    """Uncommitted changes against HEAD: computed on the fly, never stored."""
    items: list[dict[str, Any]] = []
    if head_commit(ctx.repo) is None and not ctx.repo.status():
        return items
    from warpline.git.attribution import worktree_changes  # the walker, on demand
    from warpline.service.shared.own_files import own_paths

    ours = own_paths(ctx.root, ctx.repo)
    for change in worktree_changes(ctx.repo, worktree_hashes(ctx)):
        if change.path in ours:
            continue  # warpline's own file (the .mcp.json install wrote)
        item = {
            "change_id": None,
            "entity": {"locator": change.locator, "sei": None, "warpline_entity_key_id": None,
                       "path": change.path, "kind": change.kind,
                       **language_fields(change.locator, change.path)},
            "change_kind": change.change_kind,
            "actor": None,
            "commit": None,
            "changed_at": None,
            "previous_locator": change.previous_locator,
            "previous_path": change.previous_path,
            "also_modified": change.also_modified if change.change_kind == "moved" else None,
            "origin": "worktree",
            "nature": _nature(change, where.doctests),
        }
        if where.matches(item):
            items.append(item)
    return items


def _nature(change: Any, doctests: bool) -> str | None:
    code_same, docs, signature = change.facts or (None, None, None)
    return nature_of(change.kind, change.change_kind, code_same, docs, signature, doctests)


def _page_range(ctx: RepoContext, items: list[dict[str, Any]],
                shas: list[str] | None) -> str | None:
    """All history (no range): the commits this page shows as one range a follow-up can
    take (``<oldest shown>~1..<newest shown>``), never the hundreds of refs they span.
    None when a range was asked (it is handed on) or the page reaches a root commit (no
    range excludes nothing below it; the bounded refs are handed on instead)."""
    if shas is not None:
        return None
    dated = sorted((item["changed_at"], item["commit"]) for item in items
                   if item.get("commit") and item.get("changed_at"))
    if not dated:
        return None
    oldest, newest = dated[0][1], dated[-1][1]
    from warpline.git.lookups import commit_or_none

    commit = commit_or_none(ctx.repo, oldest)
    if commit is None or not commit.parents:
        return None
    return f"{oldest[:12]}~1..{newest[:12]}"
