"""Bounds on what one stdio message may cost the server, checked before any work is done.

* A line longer than ``MAX_LINE_BYTES`` is never held whole: it is drained in chunks and
  answered ``-32600`` (``id: null``, a ``warpline.error.v1`` ``invalid_argument`` naming the
  limit). The largest legitimate call (50,000 churn refs as objects) is about 5 MB.
* A batch longer than ``MAX_BATCH`` is refused whole (``-32600``) before any element runs.
* Parsing is strict JSON: ``NaN``/``Infinity`` tokens and numbers that overflow to a
  non-finite float (``1e400``) are parse errors (``-32700``), so nothing non-finite can be
  echoed back; replies are encoded with ``allow_nan=False``.

Lists inside arguments are bounded by their schema's ``maxItems`` before validation walks
them (``warpline.contracts_io.oversized_list``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import IO, Any

MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_BATCH = 100
_CHUNK = 1024 * 1024


class Oversized:
    """Stands for a line that was longer than ``MAX_LINE_BYTES`` (its bytes are gone)."""

    def __init__(self, size: int) -> None:
        self.size = size


def lines(stdin: IO[bytes], limit: int = MAX_LINE_BYTES) -> Iterator[bytes | Oversized]:
    """The lines of ``stdin``; an over-long one is drained and yielded as ``Oversized``."""
    while True:
        line = stdin.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or (line.endswith(b"\n") and len(line) == limit + 1):
            yield line
            continue
        size = len(line)
        while not line.endswith(b"\n"):
            line = stdin.readline(_CHUNK)
            if not line:
                break
            size += len(line)
        yield Oversized(size)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} does not fit a finite double")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(line: bytes) -> Any:
    """Strict JSON (UTF-8, finite numbers only); ``ValueError``/``RecursionError`` else."""
    return json.loads(line.decode("utf-8"), parse_float=_finite, parse_constant=_no_constant)


def dumps(reply: Any) -> bytes:
    """One compact ASCII line; ``ValueError`` for a non-finite number (never emitted)."""
    return (json.dumps(reply, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
            .encode("ascii") + b"\n")


def too_large_payload(what: str, size: int, limit: int) -> dict[str, Any]:
    """The ``warpline.error.v1`` object for a message past a bound."""
    from warpline.errors import InvalidArgument

    return InvalidArgument(
        f"The {what} is too large ({size:,}; at most {limit:,}). Split it into smaller calls.",
        field=None, details={"size": size, "limit": limit}).to_payload()
