"""Opening a repository for one tool call: repo, store, and catching the store up.

pygit2 loads only when a call needs more than HEAD's id: on the common repository layout
``open_context`` reads HEAD from git's files (``git/gitfiles.py``), and a read on a
caught-up store answers without libgit2. ``RepoContext.repo`` opens it on first use.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from warpline import settings
from warpline.errors import InvalidRepo, MissingRequiredField, StoreUnwritable
from warpline.git.gitfiles import PlainRepo, plain_repo
from warpline.ingest import lock as ingestlock
from warpline.ingest.report import IngestReport, Progress
from warpline.ingest.stopping import StopRequest
from warpline.store import readonly
from warpline.store.caughtup import ingested_among, is_caught_up
from warpline.store.db import Store

if TYPE_CHECKING:
    import pygit2

    from warpline.git.hashcache import HashCache

_UNKNOWN = object()
WORKTREE_HASHES = "worktree-hashes.json"


class RepoContext:
    """One call's repository and store. ``repo`` (pygit2) opens on first use when the
    work tree was recognised from its files (``plain``)."""

    __slots__ = ("_boundary", "_head", "_repo", "plain", "root", "store")

    def __init__(self, root: Path, *, store: Store, repo: pygit2.Repository | None = None,
                 plain: PlainRepo | None = None) -> None:
        if repo is None and plain is None:
            raise TypeError("RepoContext needs a pygit2 repository or a PlainRepo")
        self.root = root
        self.store = store
        self.plain = plain
        self._repo = repo
        self._head: object = _UNKNOWN
        self._boundary: frozenset[str] | None = None

    @property
    def repo(self) -> pygit2.Repository:
        if self._repo is None:
            from warpline.git.repo import open_repo

            self._repo = open_repo(self.root)
        return self._repo

    def head_sha(self) -> str | None:
        """HEAD's commit id (None: no commits yet), read once per call."""
        if self._head is _UNKNOWN:
            if self.plain is not None and self._repo is None:
                self._head = self.plain.head
            else:
                from warpline.git.repo import head_commit

                head = head_commit(self.repo)
                self._head = None if head is None else str(head.id)
        return None if self._head is None else str(self._head)

    def learned_head(self, head: pygit2.Commit | None) -> None:
        """HEAD as pygit2 resolved it: what the rest of the call reports."""
        self._head = None if head is None else str(head.id)

    def boundary(self) -> frozenset[str]:
        """The shallow boundary commits (a ``PlainRepo`` is never shallow)."""
        if self._boundary is None:
            if self.plain is not None and self._repo is None:
                self._boundary = frozenset()
            else:
                from warpline.git import shallow

                self._boundary = shallow.boundary(self.repo)
        return self._boundary

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> RepoContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve_repo_path(repo: object, cwd: Path | None = None) -> Path:
    if repo is None:
        return _enclosing_repo(cwd)
    if repo == "":
        raise MissingRequiredField(
            "`repo` is required: pass the path of a git repository.", field="repo")
    if not isinstance(repo, str):
        raise InvalidRepo("`repo` must be a path string.", field="repo", value=repo)
    path = Path(repo).expanduser()
    if not path.is_absolute():
        if cwd is None:
            try:
                cwd = Path.cwd()
            except OSError as exc:  # the process's working directory was deleted
                raise InvalidRepo(
                    f"`repo` {repo!r} is relative, and this process's working directory "
                    "no longer exists. Pass an absolute path.", field="repo",
                    value=repo) from exc
        path = cwd / path
    return path


def _enclosing_repo(cwd: Path | None) -> Path:
    """No ``repo``: the work tree the caller's working directory is in (the MCP server's,
    the CLI's: each passes it as ``cwd``), as git finds it from a subdirectory, else
    ``missing_required_field`` saying why."""
    from warpline.git.repo import discover_top

    if cwd is None:  # a library call names its repository: no guessing from the process
        raise MissingRequiredField(
            "`repo` is required: pass the path of a git repository.", field="repo")
    top = discover_top(cwd)
    here = cwd
    if top is None:
        raise MissingRequiredField(
            f"`repo` is required here: the working directory ({here}) is not inside a git "
            "work tree. Pass the path of a git repository.", field="repo")
    return Path(top)


def open_repo_only(repo: object, cwd: Path | None = None) -> tuple[Path, pygit2.Repository]:
    """The repository and its work-tree root, creating nothing anywhere."""
    from warpline.git.repo import open_repo

    handle = open_repo(resolve_repo_path(repo, cwd))
    workdir = handle.workdir
    if workdir is None:
        raise InvalidRepo("`repo` is a bare repository; warpline needs a work tree.",
                          field="repo", value=str(repo))
    return Path(workdir).resolve(), handle


def open_context(repo: object, cwd: Path | None = None, *,
                 prefer_read_only: bool = True) -> RepoContext:
    """Open repo and store. A store that exists at the served schema is opened read-only
    (its first write makes it writable: ``Store.upgrade``), so a read on a caught-up store
    needs no write access; otherwise it is created/migrated under .weft/warpline/. A
    command that certainly writes (``ingest-commit``, ``backfill``) passes
    ``prefer_read_only=False``: one writable open instead of a read-only one upgraded."""
    path = resolve_repo_path(repo, cwd)
    plain = plain_repo(path)
    if plain is not None:
        store = Store.open(plain.root, prefer_read_only=prefer_read_only)
        return RepoContext(root=plain.root, store=store, plain=plain)
    root, handle = open_repo_only(repo, cwd)
    store = Store.open(root, prefer_read_only=prefer_read_only)
    return RepoContext(root=root, repo=handle, store=store)


def catch_up(ctx: RepoContext, *, interactive: bool = True,
             progress: Progress | None = None,
             stop: StopRequest | None = None, retry_failed: bool = False) -> IngestReport:
    """The one catch-up to HEAD: ingest new commits reachable from it. A tool answering
    now (``interactive``) stops at ``WARPLINE_INTERACTIVE_BUDGET_S`` (on a long backlog
    having ingested the newest commits first), leaves the rest to a background backfill
    (``background.py``) and says how far behind it is; while that (or a hook) holds the
    ingest lock, it answers from the store without walking. Backfill and the hooks run
    to the end.

    Nothing to write: the read-only store stays read-only. The store cannot be written
    (read-only filesystem, full disk, damaged pages: ``store_corrupt`` is a
    ``StoreUnwritable``): an interactive answer comes from what is stored,
    with ``unwritable`` naming the cause (``behind_warning``); backfill and hooks raise
    ``store_unwritable``."""
    # The usual case, and the one "is it a no-op?" check (``readonly.pending(...).nothing``
    # agrees with it exactly): skip loading pygit2 and the walker.
    if not retry_failed and is_caught_up(ctx.store, ctx.head_sha(), ctx.boundary()):
        return IngestReport()
    from warpline.git.repo import head_commit
    from warpline.ingest.driver import Ingestor

    head = head_commit(ctx.repo)
    ctx.learned_head(head)
    if interactive and ingestlock.held(ctx.store.path.parent):
        return _while_ingesting(ctx, head)
    budget = settings.interactive_budget_s() if interactive else None
    try:
        report = Ingestor(ctx.store, ctx.repo).catch_up(head, budget_s=budget,
                                                        progress=progress, stop=stop,
                                                        retry_failed=retry_failed)
    except StoreUnwritable as exc:
        if not interactive:
            raise
        left = readonly.pending(ctx.store, ctx.repo, head)
        if left.answers_complete:
            return IngestReport()  # only the walk's shortcut could not be stored
        return IngestReport(commits_behind=left.behind, unwritable=exc.hint,
                            reach_stale=left.reach_stale)
    if interactive and report.commits_behind and report.stopped_by is None:
        from warpline.service.shared.background import continue_backfill

        report.backfill_running = continue_backfill(ctx.root, ctx.store.path.parent)
    return report


def worktree_hashes(ctx: RepoContext) -> HashCache:
    """Where ``--worktree`` remembers the blob ids of large changed files: beside the store
    (in its directory, already checked for links by ``Store``)."""
    from warpline.git.hashcache import HashCache

    return HashCache(ctx.store.path.parent / WORKTREE_HASHES)


def _while_ingesting(ctx: RepoContext, head: pygit2.Commit | None) -> IngestReport:
    """Another process (a background backfill, a hook) holds the ingest lock: it is
    catching the store up now, so this call does not walk the same commits. One walk
    counts what is left and flags the commits stored so far as reachable, so the answer
    sees them."""
    from warpline.store.reach import refresh_reachability, walk_from

    if head is None:
        return IngestReport(backfill_running=True)
    shas = walk_from(ctx.repo, head)
    report = IngestReport(commits_behind=len(shas) - len(ingested_among(ctx.store, shas)),
                          backfill_running=True)
    try:
        refresh_reachability(ctx.store, ctx.repo, head, complete=False, walked=shas)
    except StoreUnwritable:
        report.reach_stale = True
    return report


def behind_warning(ctx: RepoContext, report: IngestReport,
                   range_complete: bool | None = None) -> list[str]:
    """The honest words for a store that could not catch up in time. ``range_complete``:
    every commit of the answer's range is ingested (the answer is whole for it, however
    far behind HEAD the rest of the store is); None for an answer without a range."""
    warnings: list[str] = []
    if report.unwritable is not None:
        missing = [f"{report.commits_behind} commits HEAD reaches"] if report.commits_behind \
            else []
        if report.reach_stale:
            missing.append("which stored commits HEAD still reaches (after a reset or "
                           "rebase)")
        warnings.append(
            "The store could not be brought up to HEAD because it cannot be written; this "
            "answer comes from the history stored before and is missing "
            f"{' and '.join(missing) or 'part of the history'}. Cause: {report.unwritable}")
    elif report.commits_behind and not range_complete:
        finish = ("a background backfill is ingesting the rest now: ask again later, or "
                  f"run `warpline backfill --repo {ctx.root}` to wait for it"
                  if report.backfill_running else
                  f"run `warpline backfill --repo {ctx.root}` to finish")
        warnings.append(
            f"The store is {report.commits_behind} commits behind HEAD: this answer covers "
            f"only the history ingested so far; {finish}."
        )
    edge = ctx.boundary()
    if edge:
        from warpline.git import shallow

        warnings.append(shallow.partial_history_warning(len(edge)))
    if report.reopened:
        warnings.append(
            f"The clone was deepened: {report.reopened} former shallow boundary commit(s) "
            f"were re-ingested with their history ({report.commits_ingested} commits "
            "ingested now).")
    if report.failures:
        warnings.append(
            f"{len(report.failures)} commits could not be ingested (first: "
            f"{report.failures[0][0][:12]}: {report.failures[0][1]}); they are recorded as "
            "failed and skipped (`warpline doctor` lists them, `warpline backfill "
            "--retry-failed` reads them again)."
        )
    return warnings


def failed_warning(ctx: RepoContext) -> list[str]:
    """An entity's history or count over the whole history may miss what the commits
    recorded as failed changed: say so, naming the first ones."""
    from warpline.store.events import failed_commits

    count, shas = failed_commits(ctx.store, 5)
    if not count:
        return []
    more = f" and {count - len(shas)} more" if count > len(shas) else ""
    return [f"{count} commits HEAD reaches could not be read (recorded as failed and "
            "skipped; `warpline doctor` says why, `warpline backfill --retry-failed` tries "
            "again): changes there are missing from this answer: "
            f"{', '.join(sha[:12] for sha in shas)}{more}."]


def ingest_status(ctx: RepoContext, report: IngestReport,
                  range_complete: bool | None = None) -> dict[str, object]:
    """``data.ingest``: how far behind HEAD the answer's history is."""
    edge = ctx.boundary()
    return {
        "head_commit": ctx.head_sha(),
        "commits_behind": report.commits_behind,
        "complete": report.complete and not edge,
        "ingested_now": report.commits_ingested,
        "shallow": bool(edge),
        "shallow_boundary": sorted(edge)[:50],
        "range_complete": range_complete,
        "backfill_running": report.backfill_running,
    }
