"""Input validation: the one seam where bad arguments become a ``WarplineError``.

``warpline.contracts_io.parse_input`` checks arguments against the tool's frozen input
contract and names the rejected field (dotted path) and its closed ``error_code``; this
module raises the matching exception with a hint that says how to fix it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from warpline.contracts_io import InputContract, InputProblem, field_code, parse_input
from warpline.errors import ERROR_CLASSES, InvalidArgument, WarplineError
from warpline.limits import DEFAULT_DEPTH, MAX_DEPTH

if TYPE_CHECKING:
    from pydantic import BaseModel

_BY_CODE: dict[str, type[WarplineError]] = {cls.code: cls for cls in ERROR_CLASSES}

_HINTS: dict[str, str] = {
    "repo": "Pass the path of a git repository with a work tree.",
    "depth": f"Pass an integer from 0 to {MAX_DEPTH} (default {DEFAULT_DEPTH}).",
    "filters": "Use only the filter keys this tool's input schema lists.",
    "window": "Use `since`, `until` (ISO-8601 instants) and `rev_range`.",
    "sort_by": "Use one of the sort keys this tool's input schema lists.",
    "sort_order": "Use `asc` or `desc`.",
    "changed_refs": "Pass a list of {kind, value} refs (or bare strings).",
    "entity_refs": "Pass a list of {kind, value} refs (or bare strings).",
    "limit": "Pass a positive integer within the schema's bounds.",
}


def error_class(field: str | None) -> type[WarplineError]:
    """The closed-vocabulary error for a bad value of ``field`` (``cursor`` ->
    ``invalid_cursor``, ...), as validation reports it."""
    return _BY_CODE.get(field_code(field), InvalidArgument)


def validate_input(tool: InputContract, arguments: Any) -> BaseModel:
    """The tool's input model; strict: a wrong type is an error naming the field, never
    silently coerced."""
    if not isinstance(arguments, dict):
        raise InvalidArgument("Tool arguments must be a JSON object.", field=None,
                              value=type(arguments).__name__)
    params, problems = parse_input(tool, arguments)
    if params is not None:
        return params
    raise to_error(problems[0], arguments)


def to_error(problem: InputProblem, arguments: dict[str, Any]) -> WarplineError:
    field = problem.field
    top = field.split(".")[0] if field else "arguments"
    cls = _BY_CODE.get(problem.error_code, InvalidArgument)
    if problem.error_code == "missing_required_field":
        return cls(f"`{field}` is required. {_HINTS.get(top, '')}".strip(), field=field)
    if problem.unknown:
        return cls(f"Unknown argument `{field}`: this tool does not accept it. Remove it; "
                   "the tool's input schema lists what it accepts.", field=field)
    hint = _HINTS.get(top, "Fix the value to match the tool's input schema.")
    return cls(f"`{field}` is invalid ({problem.message}). {hint}", field=field,
               value=_short(_at(arguments, field)))


def _at(arguments: Any, field: str | None) -> Any:
    value = arguments
    for part in (field or "").split(".") if field else []:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def _short(value: Any) -> Any:
    text = repr(value)
    return value if len(text) <= 200 else text[:200] + "…"
