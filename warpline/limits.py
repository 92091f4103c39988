"""Bounds written once: the dependency depth every graph tool accepts, churn's ref count."""

from __future__ import annotations

MAX_DEPTH = 5  # dependency hops; the input contracts' maximum (v1: frozen)
DEFAULT_DEPTH = 2
DEPTH_RANGE = f"0-{MAX_DEPTH}"
MAX_CHURN_REFS = 50_000  # refs per churn call and its largest page (v1: frozen)
# The longest string any tool argument may hold, in characters: the longest legitimate one
# is a path (PATH_MAX is 4,096 bytes); a 7 MB string cost seconds and hundreds of MB to
# validate and came back four times in the answer. Checked before validation.
MAX_STRING_CHARS = 16_384
_MAX_WALK_DEPTH = 64
_NESTED = (str, dict, list)


def first_long_string(value: object, limit: int = MAX_STRING_CHARS) -> tuple[str, int] | None:
    """``(dotted path, length)`` of the first string in ``value`` (a decoded JSON value, keys
    included) longer than ``limit``; list elements are named by index."""
    found = _walk(value, limit, 0)
    if found is None:
        return None
    path, length = found
    return ".".join(str(p) for p in reversed(path)) or "arguments", length


def _walk(item: object, limit: int, depth: int) -> tuple[list[str | int], int] | None:
    if isinstance(item, str):
        return ([], len(item)) if len(item) > limit else None
    if depth >= _MAX_WALK_DEPTH:
        return None
    if isinstance(item, dict):
        for key, sub in item.items():
            if isinstance(key, str) and len(key) > limit:
                return [f"{key[:40]}…"], len(key)
            if isinstance(sub, _NESTED):
                found = _walk(sub, limit, depth + 1)
                if found is not None:
                    found[0].append(key)
                    return found
    elif isinstance(item, list) and len(item) <= MAX_CHURN_REFS:
        # A longer list is past every contract's maxItems: refused by that bound before
        # any of its elements is validated or echoed.
        for index, sub in enumerate(item):
            if isinstance(sub, _NESTED):
                found = _walk(sub, limit, depth + 1)
                if found is not None:
                    found[0].append(index)
                    return found
    return None
