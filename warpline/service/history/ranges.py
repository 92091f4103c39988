"""The commits of a revision range, ingested on demand: the one range helper of the
history tools (``changed``) and of impact's seeds (``service/impact/seeds.py``)."""

from __future__ import annotations

from typing import Any

import pygit2

from warpline import settings
from warpline.errors import InvalidRevRange, StoreUnwritable
from warpline.git.repo import commits_in_range, head_commit, range_commits, resolve_commit
from warpline.service.shared.context import RepoContext
from warpline.store.caughtup import ingested_among
from warpline.store.events import reachable_commit_count


def commits_of_range(ctx: RepoContext, warnings: list[str], *, rev_range: str | None = None,
                     base_ref: str | None = None, head_ref: str | None = None,
                     spent: bool = False, worktree: bool = False,
                     notes: list[str] | None = None,
                     ) -> tuple[list[str] | None, dict[str, Any]]:
    """The commit shas an answer covers (None: every recorded commit) and the range's wire
    form (``rev_range``, ``base_commit``, ``head_commit``, ``commit_count``).

    ``rev_range`` or ``base_ref``/``head_ref`` (not both); neither covers every recorded
    commit. Commits of the range not yet in the store are ingested on demand (not when the
    catch-up already ``spent`` the answer's budget); each that could not be adds a warning,
    so no warning means the range is whole. A range naming no commit is said in ``notes``
    (default: ``warnings``): it is whole, only empty."""
    if rev_range is not None and (base_ref or head_ref):
        raise InvalidRevRange("Pass either `rev_range` or `base_ref`/`head_ref`, not both.",
                              field="rev_range", value=rev_range)
    single: list[pygit2.Commit] | None = None
    if rev_range is not None:
        base, head, single = range_commits(ctx.repo, rev_range)
        text = rev_range
    elif base_ref or head_ref:
        head = resolve_commit(ctx.repo, head_ref or "HEAD", field="head_ref")
        base = resolve_commit(ctx.repo, base_ref, field="base_ref") if base_ref else None
        text = f"{base_ref or ''}..{head_ref or 'HEAD'}"
    else:
        tip = head_commit(ctx.repo)
        return None, {"rev_range": None, "base_commit": None,
                      "head_commit": None if tip is None else str(tip.id),
                      "commit_count": reachable_commit_count(ctx.store)}
    commits = single if single is not None else commits_in_range(ctx.repo, base, head)
    if not commits and base is not None:
        _empty_range(ctx, text, base, head, worktree,
                     warnings if notes is None else notes)
    _ensure_ingested(ctx, commits, warnings, spent)
    info = {"rev_range": text, "base_commit": None if base is None else str(base.id),
            "head_commit": str(head.id), "commit_count": len(commits)}
    return [str(c.id) for c in commits], info


def _empty_range(ctx: RepoContext, text: str, base: pygit2.Commit, head: pygit2.Commit,
                 worktree: bool, warnings: list[str]) -> None:
    """A range that names no commit is never read as "nothing changed". Reversed (its head
    an ancestor of its base, ``HEAD..HEAD~3``): ``invalid_rev_range`` naming the range the
    other way round. Both ends one commit (``HEAD..HEAD``): the work tree alone when it
    is asked for (my work without an upstream), else a warning that the range is empty."""
    if base.id != head.id:
        left, right = _ends(text)
        flipped = f"{right}..{left}"
        raise InvalidRevRange(
            f"The range {text!r} is reversed: {right or 'HEAD'} is an ancestor of "
            f"{left or 'HEAD'}, so it names no commit. Pass {flipped!r} for the commits "
            "between them.", field="rev_range", value=text,
            details={"did_you_mean": flipped})
    if not worktree:
        warnings.append(
            f"The range {text!r} names no commit: both ends are {str(head.id)[:12]}. Pass "
            "A..B with A an ancestor of B, or one rev for that commit (with "
            "include_worktree for uncommitted changes).")


def _ends(text: str) -> tuple[str, str]:
    left, _, right = text.partition("...") if "..." in text else text.partition("..")
    return left, right


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
    from warpline.ingest.driver import Ingestor  # the walker, only when there is work

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
