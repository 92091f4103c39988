"""``warpline_change_list`` / ``changed``: which entities changed in a revision range."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2

from warpline import settings
from warpline.errors import InvalidRevRange, StoreUnwritable
from warpline.git.repo import commits_in_range, head_commit, range_commits, resolve_commit
from warpline.models import ChangeListEnvelope
from warpline.models.inputs import ChangeListInput
from warpline.models.wire import language_fields
from warpline.service.history import events_query as eq
from warpline.service.shared.context import (
    RepoContext,
    behind_warning,
    catch_up,
    ingest_status,
    open_context,
    worktree_hashes,
)
from warpline.service.shared.envelope import envelope
from warpline.service.shared.nature import nature_of, runs_doctests
from warpline.service.shared.next_actions import follow_ups
from warpline.service.shared.paging import Pager
from warpline.store.caughtup import ingested_among
from warpline.store.events import Where, reachable_commit_count, select_events

TOOL = "warpline_change_list"
# Bounded argument lists in next_actions and data.changed_refs.
MAX_REFS = 200


def change_list(params: ChangeListInput, cwd: Path | None) -> dict[str, Any]:
    with open_context(params.repo, cwd) as ctx:
        report = catch_up(ctx)
        range_warnings: list[str] = []
        shas, range_info = _range_commits(ctx, params, range_warnings,
                                              report.commits_behind > 0)
        range_complete = None if shas is None else not range_warnings
        warnings = behind_warning(ctx, report, range_complete) + range_warnings
        range_text = range_info["rev_range"]
        where = eq.where_from_filters(params.filters)
        where.doctests = runs_doctests(ctx.root)
        where.skip_cosmetic = params.skip_cosmetic
        sort_by, order = params.sort_by, params.sort_order
        pager = Pager.of(params)
        rows, total = select_events(ctx.store.conn, shas, where, sort_by, order,
                                       pager.end + 1)
        warnings.extend(eq.range_notes(ctx.store.conn, shas))
        items = [eq.item_from_row(row, where.doctests) for row in rows]
        if params.include_worktree:
            items.extend(_worktree_items(ctx, where))
            items = eq.sort_items(items, sort_by, order)
            total += sum(1 for item in items if item["origin"] == "worktree")
        page_items = pager.cut(items)
        warnings.extend(eq.unknown_natures(page_items))
        refs, key_ids, truncated = eq.distinct_refs(ctx.store.conn, shas, where, items,
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
            actions = follow_ups(ctx.root, range_text, params.include_worktree, refs,
                                 report.commits_behind)
        any_sei = any(item["entity"]["sei"] for item in page_items)
        return envelope(
            model=ChangeListEnvelope, tool=TOOL, repo=ctx.root, params=params, data=data,
            filters=where.echo(), sort={"by": sort_by, "order": order},
            page={"limit": params.limit, "cursor": params.cursor}, warnings=warnings,
            next_actions=actions, enrichment={"sei": "present" if any_sei else "absent"},
        )


def _range_commits(ctx: RepoContext, params: Any, warnings: list[str],
                   spent: bool = False) -> tuple[list[str] | None, dict[str, Any]]:
    """The commit shas the answer covers (None: every recorded commit) and the range."""
    if params.rev_range is not None and (params.base_ref or params.head_ref):
        raise InvalidRevRange("Pass either `rev_range` or `base_ref`/`head_ref`, not both.",
                              field="rev_range", value=params.rev_range)
    single: list[pygit2.Commit] | None = None
    if params.rev_range is not None:
        base, head, single = range_commits(ctx.repo, params.rev_range)
        text = params.rev_range
    elif params.base_ref or params.head_ref:
        head = resolve_commit(ctx.repo, params.head_ref or "HEAD", field="head_ref")
        base = resolve_commit(ctx.repo, params.base_ref, field="base_ref") \
            if params.base_ref else None
        text = f"{params.base_ref or ''}..{params.head_ref or 'HEAD'}"
    else:
        tip = head_commit(ctx.repo)
        return None, {"rev_range": None, "base_commit": None,
                      "head_commit": None if tip is None else str(tip.id),
                      "commit_count": reachable_commit_count(ctx.store.conn)}
    commits = single if single is not None else commits_in_range(ctx.repo, base, head)
    _ensure_ingested(ctx, commits, warnings, spent)
    info = {"rev_range": text, "base_commit": None if base is None else str(base.id),
            "head_commit": str(head.id), "commit_count": len(commits)}
    return [str(c.id) for c in commits], info


def _ensure_ingested(ctx: RepoContext, commits: list[pygit2.Commit],
                     warnings: list[str], spent: bool = False) -> None:
    """A range off HEAD's history (another branch), or one the catch-up has not reached
    yet, is ingested on demand, within budget; not at all when the catch-up to HEAD
    already ``spent`` this answer's budget. Each commit it could not ingest adds a warning
    (none: the range is whole)."""
    shas = [str(c.id) for c in commits]
    done = ingested_among(ctx.store, shas)
    missing = [c for c in reversed(commits) if str(c.id) not in done]
    if not missing:
        return
    if spent:
        warnings.append(
            f"{len(missing)} commits of the range are not ingested yet: this answer is "
            f"partial. Run `warpline backfill --repo {ctx.root}` and ask again.")
        return
    from warpline.store.ingest import Ingestor  # the walker, only when there is work

    try:
        ingestor = Ingestor(ctx.store, ctx.repo)
        if len(missing) > 1:  # newest first, maybe before older history is stored
            ingestor.mark_unordered()
        report = ingestor.run(missing, budget_s=settings.interactive_budget_s())
    except StoreUnwritable as exc:
        warnings.append(
            f"{len(missing)} commits of the range are not in the store, and the store cannot "
            f"be written now: this answer is partial. Cause: {exc.hint}")
        return
    if report.commits_behind:
        warnings.append(
            f"{report.commits_behind} commits of the range are not ingested yet: this answer "
            f"is partial. Run `warpline backfill --repo {ctx.root}` and ask again.")
    if report.failures:
        sha, error = report.failures[0]
        warnings.append(
            f"{len(report.failures)} commits of the range could not be ingested (first: "
            f"{sha[:12]}: {error}): this answer is partial; `warpline doctor` lists them.")


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
