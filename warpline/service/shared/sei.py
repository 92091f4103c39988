"""SEIs are opaque attributes resolved from loomweave, never minted, never parsed.

When a caller names an entity by SEI and the store has not recorded that SEI yet, the
loomweave index (read read-only) says which locator it is bound to, and the store keeps
the pair so later lookups are local. The index's ``alive`` bindings are the truth: an SEI
re-bound to another locator moves with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from warpline.errors import StoreUnwritable
from warpline.service.shared.context import RepoContext
from warpline.service.shared.resolve import Ref
from warpline.store.entities import bind_seis, known_seis


def backfill_seis(ctx: RepoContext, refs: Sequence[Ref]) -> dict[str, str]:
    """SEI → locator for the SEI refs the store does not know yet (from loomweave).

    Pairs whose locator is in the store are recorded there; all pairs are returned so a
    caller can still echo a locator for an entity warpline has never seen change.
    """
    wanted = sorted({ref.value for ref in refs if ref.kind == "sei"})
    if not wanted:
        return {}
    known = known_seis(ctx.store, wanted)
    missing = [s for s in wanted if s not in known]
    if not missing:
        return {}
    from warpline.graph.loomweave_source import resolve_locators

    pairs = resolve_locators(ctx.root, missing)
    if pairs:
        try:
            bind_seis(ctx.store, pairs)
        except StoreUnwritable:
            pass  # a cache of loomweave's answer: this call still uses ``pairs``
    return pairs
