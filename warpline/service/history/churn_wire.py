"""churn's envelope built and checked without pydantic, equal to what its model gives.

``EntityChurnCountEnvelope.model_validate`` followed by ``dump`` does three things to the
envelope the service assembles: it checks every field's type and bound, fills in the
defaults of fields left out, and writes each object's keys in the model's field order.
``churn_envelope`` does the same three by hand for exactly the shapes churn assembles:
exact JSON types only (a value the model would coerce, such as ``True`` for a count, is
not accepted here), unknown keys refused as the model refuses them. Anything that does not
fit answers ``None`` and the caller goes through the model, which then raises what it
raises today. Items past the first ``_SAMPLE`` are checked by sample and passed through
unchanged, as ``shared.envelope.envelope`` does. ``tests/test_churn_fast.py`` compares
the bytes of both over fixture repositories, a backfilled real clone and generated input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, get_args

from warpline._version import __version__
from warpline.models.vocab import (
    EdgesEnrichmentValue,
    EnrichmentValue,
    EntityKind,
    EntityRefKind,
    SortOrder,
    ToolName,
)
from warpline.models.wire import MAX_INT64, TIMESTAMP_PATTERN, holds_as_text, language_fields
from warpline.service.shared.envelope import SAMPLE, Dumpable, raw_envelope

SCHEMA = "warpline.entity_churn_count.v1"
_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)
_REQUIRED = object()

Check = Callable[[Any], Any]


class _Misfit(Exception):
    """A value the hand check does not vouch for: the model decides."""


def _text(value: Any) -> str:
    if type(value) is not str or not holds_as_text(value):
        raise _Misfit
    return value


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _integer(minimum: int) -> Check:
    def check(value: Any) -> int:
        if type(value) is not int or not minimum <= value <= MAX_INT64:
            raise _Misfit
        return value
    return check


def _boolean(value: Any) -> bool:
    if type(value) is not bool:
        raise _Misfit
    return value


def _choice(vocabulary: Any) -> Check:
    allowed = frozenset(get_args(vocabulary))

    def check(value: Any) -> str:
        if type(value) is not str or value not in allowed:
            raise _Misfit
        return value
    return check


def _timestamp(value: Any) -> str:
    # The schema's pattern as the model's (Rust) regex reads it: ``$`` is the very end.
    text = _text(value)
    match = _TIMESTAMP.match(text)
    if match is None or match.end() != len(text):
        raise _Misfit
    return text


def _list(check: Check) -> Check:
    def each(value: Any) -> list[Any]:
        if type(value) is not list:
            raise _Misfit
        return [check(item) for item in value]
    return each


def _json(value: Any) -> Any:
    """A value of an ``Any`` field: plain JSON passes through the model unchanged."""
    if value is None or type(value) in (str, int, bool):
        return _text(value) if type(value) is str else value
    if type(value) is list:
        return [_json(item) for item in value]
    if type(value) is dict:
        return {_text(key): _json(item) for key, item in value.items()}
    raise _Misfit


def _json_object(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise _Misfit
    out: dict[str, Any] = _json(value)
    return out


def _ref_value(value: Any) -> str | int:
    if type(value) is int:
        if abs(value) > MAX_INT64:
            raise _Misfit
        return value
    return _text(value)


def _object(fields: tuple[tuple[str, Check, Any], ...]) -> Check:
    """A model: its fields in order (name, check, default or ``_REQUIRED``); no other key."""
    names = frozenset(name for name, _, _ in fields)

    def check(value: Any) -> dict[str, Any]:
        if type(value) is not dict or not names.issuperset(value):
            raise _Misfit
        out: dict[str, Any] = {}
        for name, field_check, default in fields:
            if name in value:
                out[name] = field_check(value[name])
            elif default is _REQUIRED:
                raise _Misfit
            else:
                out[name] = default() if callable(default) else default
        return out
    return check


_opt_text = _optional(_text)
_opt_timestamp = _optional(_timestamp)
_count = _integer(0)

_entity_fields = _object((("locator", _opt_text, _REQUIRED), ("sei", _opt_text, None),
                         ("warpline_entity_key_id", _optional(_integer(1)), None),
                         ("path", _opt_text, None),
                         ("kind", _optional(_choice(EntityKind)), None),
                         ("language", _opt_text, None),
                         ("language_kind", _opt_text, None)))


def _entity(value: Any) -> dict[str, Any]:
    out: dict[str, Any] = _entity_fields(value)
    if "language_kind" not in value:  # the model derives both from the locator
        out.update(language_fields(out["locator"], out["path"]))
    return out


_item = _object((
    ("ref", _object((("kind", _choice(EntityRefKind), _REQUIRED),
                     ("value", _ref_value, _REQUIRED))), _REQUIRED),
    ("entity", _entity, _REQUIRED),
    ("observed", _boolean, _REQUIRED),
    ("churn_count", _count, _REQUIRED),
    ("first_changed_at", _opt_timestamp, _REQUIRED),
    ("last_changed_at", _opt_timestamp, _REQUIRED),
    ("last_actor", _opt_text, _REQUIRED),
    ("nested_churn_count", _count, 0),
))

_data_rest = _object((
    ("items", lambda items: items, _REQUIRED),  # checked apart (by sample past _SAMPLE)
    ("window", _object((("since", _opt_timestamp, None), ("until", _opt_timestamp, None),
                        ("rev_range", _opt_text, None))), _REQUIRED),
    ("ingest", _object((("head_commit", _opt_text, _REQUIRED),
                        ("commits_behind", _count, 0), ("complete", _boolean, True),
                        ("ingested_now", _count, 0), ("shallow", _boolean, False),
                        ("shallow_boundary", _list(_text), list),
                        ("range_complete", _optional(_boolean), None),
                        ("backfill_running", _boolean, False))), _REQUIRED),
    ("total", _count, _REQUIRED),
    ("page", _object((("limit", _integer(1), _REQUIRED), ("next_cursor", _opt_text, None),
                      ("has_more", _boolean, False))), _REQUIRED),
))

_query = _object((
    ("repo", _text, _REQUIRED),
    ("tool", _choice(ToolName), _REQUIRED),
    ("arguments", _json_object, dict),
    ("filters", _json_object, dict),
    ("sort", _object((("by", _opt_text, None), ("order", _optional(_choice(SortOrder)), None))),
     lambda: {"by": None, "order": None}),
    ("page", _object((("limit", _optional(_integer(1)), None), ("cursor", _opt_text, None))),
     lambda: {"limit": None, "cursor": None}),
))

_enrichment = _object((
    ("sei", _choice(EnrichmentValue), "absent"),
    ("edges", _choice(EdgesEnrichmentValue), "absent"),
    *((name, _choice(EnrichmentValue), "unavailable")
      for name in ("work", "risk", "governance", "requirements")),
))


def _no_actions(value: Any) -> dict[str, Any]:
    if value != {} or type(value) is not dict:  # churn proposes none; others go to the model
        raise _Misfit
    return {}


def _meta() -> dict[str, Any]:
    return {"producer": {"tool": "warpline", "version": __version__}, "local_only": True,
            "peer_side_effects": []}


def _envelope(raw: Mapping[str, Any]) -> dict[str, Any]:
    if set(raw) != {"ok", "query", "data", "warnings", "next_actions", "enrichment"} \
            or raw["ok"] is not True:
        raise _Misfit
    data = _data_rest(raw["data"])
    items = data["items"]
    if type(items) is not list:
        raise _Misfit
    checked = [_item(item) for item in items[:SAMPLE]]
    data["items"] = items if len(items) > SAMPLE else checked
    return {
        "schema": SCHEMA,
        "ok": True,
        "query": _query(raw["query"]),
        "data": data,
        "warnings": _list(_text)(raw["warnings"]),
        "next_actions": _no_actions(raw["next_actions"]),
        "enrichment": _enrichment(raw["enrichment"]),
        "meta": _meta(),
    }


def churn_envelope(*, tool: str, repo: Path | str, params: Dumpable, data: dict[str, Any],
                   sort: dict[str, Any], page: dict[str, Any], warnings: list[str],
                   enrichment: dict[str, str]) -> dict[str, Any] | None:
    """The envelope ``envelope(model=EntityChurnCountEnvelope, ...)`` gives for these
    parts, or ``None`` when the hand check cannot vouch for them (the model decides)."""
    raw = raw_envelope(tool=tool, repo=repo, params=params, data=data, filters={},
                       sort=sort, page=page, warnings=warnings, enrichment=enrichment)
    try:
        return _envelope(raw)
    except _Misfit:
        return None
