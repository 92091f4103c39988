"""churn's common input shape, checked by hand so that a call need not load pydantic.

loomweave spawns ``warpline-mcp`` once per call, and importing pydantic and building the
churn models is most of a first call's cost. ``fast_args`` accepts only arguments it can
tell for certain that ``EntityChurnCountInput`` (strict, closed) accepts, and gives the
values that model gives: exact JSON types, the allowed keys, the model's limits. Anything
else (a wrong type, an unknown key, a limit crossed, a string pydantic cannot hold, an
unusual but valid shape) answers ``None``, and the call goes to the model, so every error
keeps its code and field. ``tests/test_churn_fast.py`` holds the two to the same inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard, get_args

from warpline.limits import MAX_CHURN_REFS
from warpline.models.vocab import ChurnSortBy, EntityRefKind, SortOrder
from warpline.models.wire import MAX_INT64, holds_as_text

# The model's fields, in its order (its dump's key order).
_FIELDS = ("repo", "entity_refs", "window", "sort_by", "sort_order", "limit", "cursor",
           "skip_cosmetic")
_WINDOW_FIELDS = ("since", "until", "rev_range")
_FIELD_SET = frozenset(_FIELDS)
_WINDOW_SET = frozenset(_WINDOW_FIELDS)
_REF_KEYS = frozenset(("kind", "value"))
_SORT_BY = frozenset(get_args(ChurnSortBy))
_SORT_ORDER = frozenset(get_args(SortOrder))
_REF_KINDS = frozenset(get_args(EntityRefKind))
_KEY_ID = "warpline_entity_key_id"
_ABSENT = object()


@dataclass(frozen=True, slots=True)
class ChurnWindowArgs:
    """``window`` as ``ChurnWindow`` parses it; ``given`` names the keys the caller set."""

    since: str | None
    until: str | None
    rev_range: str | None
    given: tuple[str, ...]

    def model_dump(self, *, mode: str = "python", exclude_unset: bool = False
                   ) -> dict[str, Any]:
        """What ``ChurnWindow.model_dump`` gives (every value is already JSON)."""
        return {name: getattr(self, name) for name in _WINDOW_FIELDS
                if not exclude_unset or name in self.given}


@dataclass(frozen=True, slots=True)
class ChurnArgs:
    """churn's arguments as ``EntityChurnCountInput`` parses them, without pydantic.

    ``entity_refs`` holds the caller's strings and ``{kind, value}`` objects (both are
    what ``resolve.parse_refs`` reads); ``given`` names the arguments the caller set."""

    repo: str
    entity_refs: list[str | dict[str, Any]]
    window: ChurnWindowArgs | None
    sort_by: str
    sort_order: str
    limit: int
    cursor: str | None
    given: tuple[str, ...]
    plain: bool = False  # every ref is a string (the dump copies the list as it is)
    skip_cosmetic: bool = False

    def model_dump(self, *, mode: str = "python", exclude_unset: bool = False
                   ) -> dict[str, Any]:
        """What ``EntityChurnCountInput.model_dump`` gives (a ref object as {kind, value})."""
        out: dict[str, Any] = {}
        for name in _FIELDS:
            if exclude_unset and name not in self.given:
                continue
            if name == "entity_refs":
                out[name] = list(self.entity_refs) if self.plain else [
                    ref if isinstance(ref, str) else {"kind": ref["kind"], "value": ref["value"]}
                    for ref in self.entity_refs]
            elif name == "window":
                out[name] = None if self.window is None else self.window.model_dump(
                    mode=mode, exclude_unset=exclude_unset)
            else:
                out[name] = getattr(self, name)
        return out


def fast_args(arguments: dict[str, Any]) -> ChurnArgs | None:
    """The parsed arguments when they are certainly valid; ``None`` sends them to the model."""
    if not _FIELD_SET.issuperset(arguments):
        return None
    repo = arguments.get("repo")
    refs = arguments.get("entity_refs")
    if not _text(repo, 1) or type(refs) is not list or len(refs) > MAX_CHURN_REFS:
        return None
    plain = True
    for ref in refs:
        if type(ref) is str:
            if not ref or not holds_as_text(ref):
                return None
        elif type(ref) is not dict or not _ref_object(ref):
            return None
        else:
            plain = False
    window = _window(arguments.get("window", _ABSENT))
    sort_by = arguments.get("sort_by", "churn_count")
    sort_order = arguments.get("sort_order", "desc")
    limit = arguments.get("limit", 100)
    cursor = arguments.get("cursor")
    skip_cosmetic = arguments.get("skip_cosmetic", False)
    if (window is _ABSENT or type(skip_cosmetic) is not bool
            or type(sort_by) is not str or sort_by not in _SORT_BY
            or type(sort_order) is not str or sort_order not in _SORT_ORDER
            or type(limit) is not int or not 1 <= limit <= MAX_CHURN_REFS
            or not (cursor is None or _text(cursor, 0))):
        return None
    assert window is None or isinstance(window, ChurnWindowArgs)
    return ChurnArgs(repo, refs, window, sort_by, sort_order, limit, cursor,
                     tuple(name for name in _FIELDS if name in arguments), plain, skip_cosmetic)


def _text(value: object, min_length: int) -> TypeGuard[str]:
    return type(value) is str and len(value) >= min_length and holds_as_text(value)


def _ref_object(ref: dict[str, Any]) -> bool:
    """A ``{kind, value}`` the ``EntityRef`` model accepts and ``parse_refs`` reads the same
    way as the model's object (an integer value only for a key id: for any other kind the
    model's object would turn it into a string, a plain object would not)."""
    if ref.keys() != _REF_KEYS:
        return False
    kind, value = ref["kind"], ref["value"]
    if type(kind) is not str or kind not in _REF_KINDS:
        return False
    if type(value) is int:
        return kind == _KEY_ID and 1 <= value <= MAX_INT64
    return _text(value, 1)


def _window(raw: object) -> ChurnWindowArgs | object | None:
    """The window, ``None`` (absent or null) or ``_ABSENT`` for anything the model must see."""
    if raw is _ABSENT or raw is None:
        return None
    if type(raw) is not dict or not _WINDOW_SET.issuperset(raw):
        return _ABSENT
    since, until, rev_range = (raw.get(name) for name in _WINDOW_FIELDS)
    if not all(value is None or _text(value, 1) for value in (since, until, rev_range)):
        return _ABSENT
    return ChurnWindowArgs(since, until, rev_range,
                           tuple(name for name in _WINDOW_FIELDS if name in raw))
