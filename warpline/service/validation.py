"""Input validation: pydantic errors translated into the closed error vocabulary.

This is the one seam where ``pydantic.ValidationError`` becomes a ``WarplineError`` that
names the rejected field (dotted path), the value, and the fix.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from warpline.errors import (
    InvalidArgument,
    InvalidChangedRefs,
    InvalidCursor,
    InvalidDepth,
    InvalidEntityRef,
    InvalidFilter,
    InvalidRepo,
    InvalidRevRange,
    InvalidSort,
    MissingRequiredField,
    WarplineError,
)

M = TypeVar("M", bound=BaseModel)

# The first path element decides the code; everything else is invalid_argument.
_FIELD_ERRORS: dict[str, type[WarplineError]] = {
    "repo": InvalidRepo,
    "rev_range": InvalidRevRange,
    "base_ref": InvalidRevRange,
    "head_ref": InvalidRevRange,
    "depth": InvalidDepth,
    "filters": InvalidFilter,
    "sort_by": InvalidSort,
    "sort_order": InvalidSort,
    "group_by": InvalidSort,
    "changed_refs": InvalidChangedRefs,
    "entity_ref": InvalidEntityRef,
    "entity": InvalidEntityRef,
    "entity_refs": InvalidEntityRef,
    "cursor": InvalidCursor,
}

_HINTS: dict[str, str] = {
    "repo": "Pass the path of a git repository with a work tree.",
    "depth": "Pass an integer from 0 to 5 (default 2).",
    "filters": "Use only the filter keys this tool's input schema lists.",
    "sort_by": "Use one of the sort keys this tool's input schema lists.",
    "sort_order": "Use `asc` or `desc`.",
    "changed_refs": "Pass a list of {kind, value} refs (or bare strings).",
    "entity_refs": "Pass a list of {kind, value} refs (or bare strings).",
    "limit": "Pass a positive integer within the schema's bounds.",
}


def validate_input(model: type[M], arguments: dict[str, Any]) -> M:
    """Strict: a wrong type is an error naming the field, never silently coerced."""
    if not isinstance(arguments, dict):
        raise InvalidArgument("Tool arguments must be a JSON object.", field=None,
                              value=type(arguments).__name__)
    try:
        return model.model_validate(arguments, strict=True)
    except ValidationError as exc:
        raise translate(exc) from exc


def translate(exc: ValidationError) -> WarplineError:
    first = exc.errors()[0]
    loc = [str(part) for part in first["loc"] if not isinstance(part, int)] or ["arguments"]
    field = ".".join(str(p) for p in first["loc"]) or None
    top = loc[0]
    kind = first["type"]
    value = first.get("input")
    if kind == "missing":
        return MissingRequiredField(f"`{field}` is required. {_HINTS.get(top, '')}".strip(),
                                    field=field)
    if kind == "extra_forbidden":
        unknown: type[WarplineError] = InvalidFilter if top == "filters" else InvalidArgument
        return unknown(f"Unknown argument `{field}`: this tool does not accept it. Remove it; "
                   "the tool's input schema lists what it accepts.", field=field,
                   value=_short(value))
    cls = _FIELD_ERRORS.get(top, InvalidArgument)
    hint = _HINTS.get(top, "Fix the value to match the tool's input schema.")
    return cls(f"`{field}` is invalid ({first['msg']}). {hint}", field=field, value=_short(value))


def _short(value: Any) -> Any:
    text = repr(value)
    return value if len(text) <= 200 else text[:200] + "…"
