"""Opaque cursors that page for real and refuse to be reused for another query."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from warpline.errors import InvalidCursor

T = TypeVar("T")
_MAX_OFFSET = 2**62  # far past any list; and within SQLite's integers


def query_fingerprint(arguments: dict[str, Any]) -> str:
    """A short hash of everything that defines a result list (not the page position)."""
    material = {k: v for k, v in arguments.items() if k not in ("cursor", "limit")}
    blob = json.dumps(material, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def encode_cursor(offset: int, fingerprint: str) -> str:
    raw = json.dumps({"o": offset, "q": fingerprint}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, fingerprint: str) -> int:
    """The offset a cursor points at; 0 for no cursor."""
    if cursor is None or cursor == "":
        return 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = data["o"]
        stamp = data["q"]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise InvalidCursor(
            "The cursor is not one warpline issued. Pass the `next_cursor` of the previous "
            "page unchanged, or omit `cursor` to start from the first page.",
            field="cursor", value=cursor,
        ) from exc
    if not isinstance(offset, int) or not 0 <= offset <= _MAX_OFFSET or stamp != fingerprint:
        raise InvalidCursor(
            "The cursor belongs to a different query. Repeat the same arguments as the call "
            "that returned it, or omit `cursor` to start over.",
            field="cursor", value=cursor,
        )
    return offset


class PagedInput(Protocol):
    """A tool input with ``limit`` and ``cursor`` (a pydantic input model)."""

    @property
    def limit(self) -> int: ...

    @property
    def cursor(self) -> str | None: ...

    def model_dump(self, *, mode: str) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Pager:
    """One page of a tool's result list: where it starts, and the wire ``page`` object."""

    limit: int
    offset: int
    fingerprint: str

    @classmethod
    def of(cls, params: PagedInput) -> Pager:
        """The page ``params`` asks for; ``InvalidCursor`` for a foreign or forged cursor."""
        fingerprint = query_fingerprint(params.model_dump(mode="json"))
        return cls(params.limit, decode_cursor(params.cursor, fingerprint), fingerprint)

    @property
    def end(self) -> int:
        return self.offset + self.limit

    def cut(self, items: list[T]) -> list[T]:
        return items[self.offset : self.end]

    def wire(self, total: int) -> dict[str, Any]:
        """``data.page``: ``{limit, has_more, next_cursor}`` for a list of ``total`` items."""
        has_more = self.end < total
        return {"limit": self.limit, "has_more": has_more,
                "next_cursor": encode_cursor(self.end, self.fingerprint) if has_more else None}
