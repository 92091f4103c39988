"""The ``store_meta`` keys the catch-up writes, apart from the modules that write them, so
that the caught-up check (``caughtup.py``) reads them without loading the walker or libgit2."""

from __future__ import annotations

import hashlib

__all__ = ["PLACEHOLDER_KEY", "REACH_EDGE_KEY", "REACH_TIP_KEY", "TIPS_KEY", "edge_mark"]

REACH_TIP_KEY = "reach_tip"  # the HEAD the ``reachable`` flags were computed for (reach.py)
PLACEHOLDER_KEY = "shallow_placeholders"  # shallow boundary commits held as placeholders
# The shallow boundary the ``reachable`` flags were computed under (``edge_mark``): a
# deepened or unshallowed clone has the same HEAD and a longer history to flag.
REACH_EDGE_KEY = "reach_edge"
TIPS_KEY = "complete_tips"  # ancestry-complete tips, newest first (shallow_ingest.py)


def edge_mark(boundary: frozenset[str]) -> str:
    """What ``REACH_EDGE_KEY`` holds for a shallow ``boundary``: empty for a complete clone
    (so a store written before the key existed needs nothing), else a digest of its ids."""
    if not boundary:
        return ""
    return hashlib.sha256("\n".join(sorted(boundary)).encode()).hexdigest()[:32]
