"""The ``store_meta`` keys the catch-up writes, apart from the modules that write them, so
that the caught-up check (``caughtup.py``) reads them without loading the walker or libgit2."""

from __future__ import annotations

__all__ = ["PLACEHOLDER_KEY", "REACH_TIP_KEY", "TIPS_KEY"]

REACH_TIP_KEY = "reach_tip"  # the HEAD the ``reachable`` flags were computed for (reach.py)
PLACEHOLDER_KEY = "shallow_placeholders"  # shallow boundary commits held as placeholders
TIPS_KEY = "complete_tips"  # ancestry-complete tips, newest first (shallow_ingest.py)
