"""Per-file bounds on parsing: one absurd file must not cost a backfill gigabytes.

A Python file larger than ``MAX_PARSE_BYTES``, or one defining more than ``MAX_ENTITIES``
functions and classes, is not parsed into entities: it falls back to its file event and is
listed like a file that does not parse (``unparsed_files`` of the commit; ``failed`` with
reason ``too_large`` in an edge snapshot; a file event in ``include_worktree``). Its change
is still recorded, honestly coarse. The largest hand-written Python files in the measured
corpora are a few hundred kilobytes; generated tables reach a few megabytes.
"""

from __future__ import annotations

MAX_PARSE_BYTES = 4 * 1024 * 1024
MAX_ENTITIES = 20_000


def too_large(source: bytes | int) -> bool:
    """True when a file of this content (or byte size) is past the parse cap."""
    size = source if isinstance(source, int) else len(source)
    return size > MAX_PARSE_BYTES
