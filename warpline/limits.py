"""Bounds written once: the dependency depth every graph tool accepts, churn's ref count."""

from __future__ import annotations

MAX_DEPTH = 5  # dependency hops; the input contracts' maximum (v1: frozen)
DEFAULT_DEPTH = 2
DEPTH_RANGE = f"0-{MAX_DEPTH}"
MAX_CHURN_REFS = 50_000  # refs per churn call and its largest page (v1: frozen)
