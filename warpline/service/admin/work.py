"""Work enrichment for ``reverify`` with ``include_federation: true``: filigree's issues
linked to the worklist items' SEIs, read-only, under one deadline, never raising.

``state`` is the envelope's ``enrichment.work``:

* ``present``: filigree answered and at least one item's SEI has linked issues;
* ``absent``: filigree answered and none of the items' SEIs has a linked issue. When some
  items have no SEI, a warning says their links are unknown (filigree keys links on SEIs);
* ``unavailable``: filigree could not be consulted (unreachable, timed out, not filigree),
  with the reason in ``warnings``; or no item has an SEI at all. In that case nothing is
  sent, because an empty answer would be a confident ``absent`` about entities filigree
  cannot be asked about; the warning says how to get SEIs (loomweave + capture-snapshot).

The base URL is configuration, never a tool argument: ``FILIGREE_API_URL``, else the port
filigree publishes in ``<repo>/.weft/filigree/ephemeral.port``, else filigree's default
(``warpline.federation.filigree.filigree_base_url``). The overall deadline is
``WARPLINE_FILIGREE_DEADLINE_S`` seconds (default 3).
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import dataclass, field
from typing import Any, Final

from warpline import settings
from warpline.federation.filigree import (
    WorkItem,
    fetch_work,
    filigree_base_url,
    most_urgent_priority,
    review_actions,
)
from warpline.service.shared.context import RepoContext

log = logging.getLogger("warpline.work")

DEADLINE_ENV: Final = settings.FILIGREE_DEADLINE_S.name
DEFAULT_DEADLINE_S: Final = settings.DEFAULT_FILIGREE_DEADLINE_S
CONNECT_TIMEOUT_S: Final = 1.0
READ_TIMEOUT_S: Final = 2.0
# FiligreeAction's fields: the client's richer action dicts are narrowed to the contract.
_ACTION_FIELDS: Final = ("action", "issue_id", "title", "entities", "why")


@dataclass(slots=True)
class WorkEnrichment:
    """The issue-tracker links and priorities of the items, or why there are none."""
    state: str  # "present" | "absent" | "unavailable"
    links: list[list[dict[str, Any]]]  # per item: WorkLink dicts
    priorities: list[str]  # per item: "P0".."P4" from the most urgent linked open issue
    filigree_actions: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _nothing(count: int, state: str, warnings: list[str]) -> WorkEnrichment:
    return WorkEnrichment(state=state, links=[[] for _ in range(count)],
                          priorities=["unknown"] * count, warnings=warnings)


def enrich_work(ctx: RepoContext, seis: list[str | None]) -> WorkEnrichment:
    """Per item (``seis[i]`` is item i's SEI or None): its linked issues and priority."""
    wanted = [sei for sei in seis if sei]
    if not wanted:
        repo = shlex.quote(str(ctx.root))
        return _nothing(len(seis), "unavailable", [
            "Work enrichment unavailable: no worklist item has an SEI, and filigree links "
            "issues to SEIs. Install loomweave and run `loomweave analyze`, then "
            f"`warpline capture-snapshot --repo {repo}` to resolve SEIs."])
    try:
        base_url = filigree_base_url(ctx.root)
        lookup = fetch_work(base_url, wanted, connect_timeout=CONNECT_TIMEOUT_S,
                            read_timeout=READ_TIMEOUT_S, deadline_s=settings.filigree_deadline_s())
    except Exception as exc:  # never raise: the local worklist must still be returned
        log.exception("filigree work lookup failed")
        return _nothing(len(seis), "unavailable", [
            f"Work enrichment unavailable: the filigree lookup failed unexpectedly "
            f"({type(exc).__name__}: {exc}); the worklist is local-only."])
    if lookup.state == "unavailable":
        return _nothing(len(seis), "unavailable", [
            f"Work enrichment unavailable ({lookup.reason_code}): {lookup.reason}. The "
            "worklist is local-only."])
    warnings: list[str] = []
    missing = len(seis) - sum(1 for sei in seis if sei)
    if missing:
        warnings.append(
            f"{missing} of {len(seis)} worklist items have no SEI, so filigree cannot be "
            "asked about them: their work links are unknown, not absent.")
    links: list[list[dict[str, Any]]] = []
    priorities: list[str] = []
    for sei in seis:
        items = lookup.by_sei.get(sei, []) if sei else []
        links.append([_link(item, sei) for item in items])
        priorities.append(most_urgent_priority(items))
    actions = [{key: action.get(key) for key in _ACTION_FIELDS}
               for action in review_actions(lookup.by_sei)]
    for action in actions:
        action["entities"] = list(action["entities"] or [])
    return WorkEnrichment(state=lookup.state, links=links, priorities=priorities,
                          filigree_actions=actions, warnings=warnings)


def _link(item: WorkItem, sei: str | None) -> dict[str, Any]:
    """A ``WorkLink``: the client's fields minus its UI url, plus the SEI it was found on."""
    wire: dict[str, Any] = dict(item.to_wire())
    wire.pop("url", None)
    wire["sei"] = sei
    return wire
