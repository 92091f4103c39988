"""The one exception tree, mapped one-to-one onto the closed ``error_code`` vocabulary.

    WarplineError                      (abstract; never raised itself)
    ├── MissingRequiredField           missing_required_field   retry_with_changes
    ├── InvalidArgument                invalid_argument         retry_with_changes
    ├── InvalidRepo                    invalid_repo             retry_with_changes
    ├── InvalidRevRange                invalid_rev_range        retry_with_changes
    ├── InvalidEntityRef               invalid_entity_ref       retry_with_changes
    ├── InvalidChangedRefs             invalid_changed_refs     retry_with_changes
    ├── InvalidDepth                   invalid_depth            retry_with_changes
    ├── InvalidFilter                  invalid_filter           retry_with_changes
    ├── InvalidSort                    invalid_sort             retry_with_changes
    ├── InvalidCursor                  invalid_cursor           retry_with_changes
    ├── IdempotencyConflict            idempotency_conflict     retry_with_changes
    ├── UnbackedPass                   unbacked_pass            retry_with_changes
    ├── StoreIncompatible              store_incompatible       fatal
    ├── PeerUnavailable                peer_unavailable         retry_safe
    ├── SnapshotUnavailable            snapshot_unavailable     retry_with_changes
    ├── StoreUnsafe                    store_unsafe             fatal
    ├── StoreUnwritable                store_unwritable         retry_safe
    │   └── StoreCorrupt               store_corrupt            fatal
    ├── StoreUnreadable                store_unreadable         fatal
    └── InternalError                  internal_error           fatal

Every error names the rejected field (when there is one), the value, and the fix in
``hint``. Adapters turn an error into a ``warpline.error.v1`` object with ``to_payload``;
they never inspect message text. Foreign exceptions (pygit2, sqlite3, httpx) are
translated at their seams (``warpline.git.repo``, ``warpline.store``, ``warpline.federation``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

Retryability = Literal["retry_safe", "retry_with_changes", "fatal"]


class WarplineError(Exception):
    code: ClassVar[str] = "internal_error"
    retryability: ClassVar[Retryability] = "fatal"

    def __init__(
        self,
        hint: str,
        *,
        field: str | None = None,
        value: Any = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(hint)
        self.hint = hint
        self.field = field
        self.details: dict[str, Any] = dict(details or {})
        if value is not None:
            self.details.setdefault("value", value)

    def summary(self) -> str:
        """The error in words for a reader that sees only a message line (an MCP client's
        exception text): code, field and the fix. Programs switch on ``code``, not this."""
        field = f" (field `{self.field}`)" if self.field else ""
        return f"{self.code}{field}: {self.hint}"

    def to_payload(self) -> dict[str, Any]:
        """The ``warpline.error.v1`` object for this error."""
        return {
            "schema": "warpline.error.v1",
            "ok": False,
            "error_code": self.code,
            "rejected_field": self.field,
            "retryability": self.retryability,
            "hint": self.hint,
            "details": {"message": self.hint, **self.details},
        }


class _WithChanges(WarplineError):
    retryability: ClassVar[Retryability] = "retry_with_changes"


class MissingRequiredField(_WithChanges):
    code = "missing_required_field"


class InvalidArgument(_WithChanges):
    code = "invalid_argument"


class InvalidRepo(_WithChanges):
    code = "invalid_repo"


class InvalidRevRange(_WithChanges):
    code = "invalid_rev_range"


class InvalidEntityRef(_WithChanges):
    code = "invalid_entity_ref"


class InvalidChangedRefs(_WithChanges):
    code = "invalid_changed_refs"


class InvalidDepth(_WithChanges):
    code = "invalid_depth"


class InvalidFilter(_WithChanges):
    code = "invalid_filter"


class InvalidSort(_WithChanges):
    code = "invalid_sort"


class InvalidCursor(_WithChanges):
    code = "invalid_cursor"


class IdempotencyConflict(_WithChanges):
    code = "idempotency_conflict"


class UnbackedPass(_WithChanges):
    """A pass was to be recorded that no test run on the commit backs (the run failed,
    left no receipt, tested another commit or uncommitted changes)."""

    code = "unbacked_pass"


class StoreIncompatible(WarplineError):
    code = "store_incompatible"
    retryability: ClassVar[Retryability] = "fatal"


class PeerUnavailable(WarplineError):
    code = "peer_unavailable"
    retryability: ClassVar[Retryability] = "retry_safe"


class SnapshotUnavailable(_WithChanges):
    code = "snapshot_unavailable"


class StoreUnsafe(WarplineError):
    """The state directory (or a file in it) is a symbolic link or not what it should be:
    refused before anything is read or written through it."""

    code = "store_unsafe"
    retryability: ClassVar[Retryability] = "fatal"


class StoreUnwritable(WarplineError):
    """The environment refuses a write (disk full, read-only filesystem, permissions):
    nothing was lost, the same call succeeds once the environment allows it."""

    code = "store_unwritable"
    retryability: ClassVar[Retryability] = "retry_safe"


class StoreCorrupt(StoreUnwritable):
    """The store file is damaged (SQLite's integrity check found bad pages): writes refuse
    and the hint names the repair. A ``StoreUnwritable`` so that reads which would only
    cache something (a catch-up, a bound SEI) answer from what is stored, with a warning,
    exactly as on a read-only disk; unlike that case, retrying does not help."""

    code = "store_corrupt"
    retryability: ClassVar[Retryability] = "fatal"


class StoreUnreadable(WarplineError):
    """The store file is not a warpline store (corrupt pages, a foreign or empty file)."""

    code = "store_unreadable"
    retryability: ClassVar[Retryability] = "fatal"


class InternalError(WarplineError):
    code = "internal_error"
    retryability: ClassVar[Retryability] = "fatal"


ERROR_CLASSES: tuple[type[WarplineError], ...] = (
    MissingRequiredField,
    InvalidArgument,
    InvalidRepo,
    InvalidRevRange,
    InvalidEntityRef,
    InvalidChangedRefs,
    InvalidDepth,
    InvalidFilter,
    InvalidSort,
    InvalidCursor,
    IdempotencyConflict,
    UnbackedPass,
    StoreIncompatible,
    PeerUnavailable,
    SnapshotUnavailable,
    StoreUnsafe,
    StoreUnwritable,
    StoreUnreadable,
    InternalError,
    StoreCorrupt,
)

ERROR_CODES: tuple[str, ...] = tuple(cls.code for cls in ERROR_CLASSES)
RETRYABILITY: dict[str, Retryability] = {cls.code: cls.retryability for cls in ERROR_CLASSES}
