"""Work enrichment from filigree: which tracked issues are linked to these entities.

filigree links issues to loomweave SEIs (ADR-029 entity associations). For each SEI
warpline reads ``GET /api/entity-associations?entity_id=<SEI>``, and then reads
``GET /api/issue/<id>`` once for each distinct linked issue. All of it runs in parallel
under one deadline, and the answer is a ``WorkLookup`` that is always returned, never
raised:

* ``present``: at least one SEI has linked issues;
* ``absent``: filigree answered, and nothing is linked;
* ``unavailable``: filigree could not be consulted (unreachable, timed out, an HTTP error,
  or a body that is not filigree's), with ``reason`` saying why and what to do.

warpline reads only. It proposes reviews (``review_actions``) and never files anything.
See docs/notes-filigree.md for the wire facts.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TypeVar
from urllib.parse import quote

from warpline import settings
from warpline.federation._filigree_http import FetchFailure, RawLinks, ReasonCode, fetch_links

__all__ = [
    "DEFAULT_BASE_URL",
    "ENV_VAR",
    "Priority",
    "ReasonCode",
    "WorkItem",
    "WorkLookup",
    "WorkState",
    "fetch_work",
    "filigree_base_url",
    "most_urgent_priority",
    "review_actions",
]

WorkState = Literal["present", "absent", "unavailable"]
Priority = Literal["P0", "P1", "P2", "P3", "P4"]

ENV_VAR: Final = settings.FILIGREE_API_URL.name
# filigree 3.4's own default (filigree.dashboard.DEFAULT_PORT). The dashboard binds
# 127.0.0.1 only, so naming it avoids a failed IPv6 attempt via "localhost".
DEFAULT_BASE_URL: Final = "http://127.0.0.1:8377"
# Where `filigree ensure-dashboard` publishes its port: the current store, then the legacy one.
_PORT_FILES: Final = (Path(".weft/filigree/ephemeral.port"), Path(".filigree/ephemeral.port"))
_PRIORITIES: Final[tuple[Priority, ...]] = ("P0", "P1", "P2", "P3", "P4")
_DONE_STATUSES: Final = frozenset({"closed", "done", "resolved", "cancelled", "wontfix"})

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One filigree issue linked to an entity: an ``enrichment.work`` entry."""

    issue_id: str
    title: str | None
    status: str | None
    status_category: str | None
    priority: Priority | None
    assignee: str | None
    claim_commit: str | None
    close_commit: str | None
    url: str | None = None

    @property
    def is_open(self) -> bool:
        """Not done. An orphaned binding, whose issue is gone, is not open either."""
        if self.status_category is not None:
            return self.status_category != "done"
        return self.status is not None and self.status.lower() not in _DONE_STATUSES

    def to_wire(self) -> dict[str, str | None]:
        return {
            "issue_id": self.issue_id,
            "title": self.title,
            "status": self.status,
            "status_category": self.status_category,
            "priority": self.priority,
            "assignee": self.assignee,
            "claim_commit": self.claim_commit,
            "close_commit": self.close_commit,
            "url": self.url,
        }


@dataclass(frozen=True, slots=True)
class WorkLookup:
    """The answer for a set of SEIs. ``by_sei`` holds only the SEIs with links.

    When ``unavailable``, ``by_sei`` is empty. A partial answer is never passed off as
    "no links".
    """

    state: WorkState
    by_sei: dict[str, list[WorkItem]] = field(default_factory=dict)
    reason: str | None = None
    reason_code: ReasonCode | None = None

    def items(self) -> list[WorkItem]:
        """Distinct linked issues across all SEIs, first seen first."""
        seen: dict[str, WorkItem] = {}
        for items in self.by_sei.values():
            for item in items:
                seen.setdefault(item.issue_id, item)
        return list(seen.values())


def filigree_base_url(
    repo_root: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None
) -> str:
    """``$FILIGREE_API_URL``, else the port filigree published for this repo, else the default."""
    configured = settings.filigree_api_url(environ)
    if configured:
        url = configured.rstrip("/")
        # Our paths already start with /api; accept a URL that names the API root.
        return url.removesuffix("/api") or url
    for relative in _PORT_FILES:
        port = _read_port(Path(repo_root) / relative)
        if port is not None:
            return f"http://127.0.0.1:{port}"
    return DEFAULT_BASE_URL


def _read_port(path: Path) -> int | None:
    try:
        port = int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
    return port if 0 < port < 65536 else None


def fetch_work(
    base_url: str,
    seis: Sequence[str],
    *,
    connect_timeout: float = 1.0,
    read_timeout: float = 2.0,
    deadline_s: float = 3.0,
    max_concurrency: int = 8,
) -> WorkLookup:
    """Look up the filigree issues linked to ``seis``. Never raises for a filigree failure.

    Callable from plain sync code, from a worker thread, and from sync code that runs
    inside an event loop (the lookup then runs on a private thread). Empty or duplicate
    SEIs are dropped. With no SEIs left the answer is ``absent`` and nothing is sent.
    """
    wanted = list(dict.fromkeys(sei for sei in seis if sei))
    if not wanted:
        return WorkLookup(state="absent")
    base = base_url.rstrip("/")
    raw = _run_coroutine(
        lambda: fetch_links(
            base,
            wanted,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            deadline_s=deadline_s,
            max_concurrency=max(1, max_concurrency),
        )
    )
    if isinstance(raw, FetchFailure):
        return WorkLookup(state="unavailable", reason=raw.reason, reason_code=raw.code)
    by_sei = _assemble(base, raw)
    return WorkLookup(state="present" if by_sei else "absent", by_sei=by_sei)


def _run_coroutine(factory: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    # A loop is running in this thread, so asyncio.run would refuse. Use a private thread instead.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="warpline-filigree") as pool:
        return pool.submit(lambda: asyncio.run(factory())).result()


def _assemble(base_url: str, raw: RawLinks) -> dict[str, list[WorkItem]]:
    by_sei: dict[str, list[WorkItem]] = {}
    for sei, rows in raw.rows_by_sei.items():
        items = {
            row["issue_id"]: _work_item(base_url, row, raw.issues.get(row["issue_id"]))
            for row in rows
        }
        if items:
            by_sei[sei] = sorted(items.values(), key=_urgency)
    return by_sei


def _work_item(base_url: str, row: Mapping[str, Any], issue: Mapping[str, Any] | None) -> WorkItem:
    # The issue record is authoritative. The association row carries lifecycle facts too,
    # which fill in when the issue is gone (an orphaned binding, 404).
    detail: Mapping[str, Any] = issue or {}

    def text(key: str) -> str | None:
        value = detail.get(key, row.get(key))
        return value if isinstance(value, str) and value else None

    issue_id = str(row["issue_id"])
    return WorkItem(
        issue_id=issue_id,
        title=text("title"),
        status=text("status"),
        status_category=text("status_category"),
        priority=_priority(detail.get("priority")),
        assignee=text("assignee"),
        claim_commit=text("claim_commit"),
        close_commit=text("close_commit"),
        url=f"{base_url}/#kanban&issue={quote(issue_id, safe='')}" if issue else None,
    )


def _priority(value: object) -> Priority | None:
    """filigree priorities are the ints 0..4. The strings "P0".."P4" are accepted too."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 4:
        return _PRIORITIES[value]
    if isinstance(value, str) and value.upper() in _PRIORITIES:
        return _PRIORITIES[_PRIORITIES.index(value.upper())]
    return None


def _urgency(item: WorkItem) -> tuple[bool, int, str]:
    rank = _PRIORITIES.index(item.priority) if item.priority else len(_PRIORITIES)
    return (not item.is_open, rank, item.issue_id)


def most_urgent_priority(items: Iterable[WorkItem]) -> Priority | Literal["unknown"]:
    """The most urgent priority among open linked issues. Done issues do not count."""
    ranks = [_PRIORITIES.index(i.priority) for i in items if i.is_open and i.priority]
    return _PRIORITIES[min(ranks)] if ranks else "unknown"


def review_actions(
    items: Iterable[WorkItem] | Mapping[str, Sequence[WorkItem]],
) -> list[dict[str, Any]]:
    """``next_actions.filigree[]``: review each linked issue once, most urgent first.

    Pass ``WorkLookup.by_sei`` to have each action name the entities (SEIs) it covers.
    These are proposals only: warpline files and changes nothing in filigree.
    """
    entities: dict[str, list[str]] = {}
    distinct: dict[str, WorkItem] = {}
    if isinstance(items, Mapping):
        for sei, linked in items.items():
            for item in linked:
                distinct.setdefault(item.issue_id, item)
                entities.setdefault(item.issue_id, []).append(sei)
    else:
        for item in items:
            distinct.setdefault(item.issue_id, item)
    actions: list[dict[str, Any]] = []
    for item in sorted(distinct.values(), key=_urgency):
        action: dict[str, Any] = {
            "action": "review_issue",
            "issue_id": item.issue_id,
            "title": item.title,
            "status": item.status,
            "priority": item.priority,
            "command": f"filigree show {item.issue_id}",
            "url": item.url,
            "why": _why(item),
        }
        if item.issue_id in entities:
            action["entities"] = entities[item.issue_id]
        actions.append(action)
    return actions


def _why(item: WorkItem) -> str:
    if item.is_open:
        holder = f", claimed by {item.assignee}" if item.assignee else ""
        return (
            f"open issue {item.issue_id} ({item.priority or 'no priority'}{holder}) is linked to "
            "code on this worklist: check the change fits that work, or update the issue"
        )
    if item.status is None:
        return (
            f"issue {item.issue_id} no longer exists but is still linked to code on this "
            "worklist: remove the stale association in filigree"
        )
    closed_at = f" at {item.close_commit}" if item.close_commit else ""
    return (
        f"issue {item.issue_id} was closed{closed_at}, and code linked to it is on this "
        "worklist: check the fix still holds, and reopen the issue if it does not"
    )
