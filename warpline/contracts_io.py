"""Runtime access to the frozen contract files (``contracts/*.json``).

Installed, the files ship as package data ``warpline._contracts``; in a source or editable
checkout they are read from ``<repo>/contracts/``. ``tools/list`` advertises these very
files, and ``validate_envelope`` checks an emitted envelope against its file.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # jsonschema and pydantic load only when a check needs them: the MCP
    # server's initialize reads contract files and nothing more.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
    from pydantic import BaseModel
    from pydantic_core import ErrorDetails

SOURCE_CONTRACTS_DIR = Path(__file__).resolve().parent.parent / "contracts"
ERROR_SCHEMA_ID = "warpline.error.v1"


def _read_text(filename: str) -> str:
    try:
        packaged = resources.files("warpline._contracts").joinpath(filename)
        if packaged.is_file():
            return packaged.read_text(encoding="utf-8")
    except ModuleNotFoundError:
        pass  # source / editable checkout: fall through to <repo>/contracts
    path = SOURCE_CONTRACTS_DIR / filename
    if not path.is_file():
        raise FileNotFoundError(f"contract file {filename!r} not found (looked in "
                                f"warpline._contracts and {SOURCE_CONTRACTS_DIR})")
    return path.read_text(encoding="utf-8")


@cache
def _parsed(filename: str) -> dict[str, Any]:
    content = json.loads(_read_text(filename))
    if not isinstance(content, dict):
        raise ValueError(f"contract file {filename!r} is not a JSON object")
    return content


def load_contract(filename: str) -> dict[str, Any]:
    """The parsed content of a contract file, e.g. ``warpline.change_list.v1.json`` (a copy:
    callers may modify it)."""
    return copy.deepcopy(_parsed(filename))


def shared_contract(filename: str) -> dict[str, Any]:
    """The parsed content of a contract file, shared (never modify it): for answers that
    are encoded at once, such as ``tools/list`` (32 deep copies were ~40% of its work)."""
    return _parsed(filename)


@cache
def envelope_schema_ids() -> frozenset[str]:
    """The schema ids of every tool envelope, from the inventory file, plus the error's."""
    tools = load_contract("tools.json")["tools"]
    return frozenset({row["schema"] for row in tools} | {ERROR_SCHEMA_ID})


@cache
def _validator(filename: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_parsed(filename))


def validate_envelope(obj: dict[str, Any]) -> None:
    """Validate a success or error envelope against the file named by its ``schema``.

    Raises ``ValueError`` for an unknown schema id and ``jsonschema.ValidationError`` (the
    most relevant error) when the envelope breaks its contract.
    """
    from jsonschema.exceptions import best_match

    schema_id = obj.get("schema")
    if schema_id not in envelope_schema_ids():
        raise ValueError(f"unknown envelope schema {schema_id!r}")
    error = best_match(_validator(f"{schema_id}.json").iter_errors(obj))
    if error is not None:
        raise error


class InputContract(Protocol):
    """What input validation needs of a tool (a row of ``warpline.registry.TOOLS``)."""

    @property
    def input_model(self) -> type[BaseModel]: ...

    @property
    def input_schema_file(self) -> str: ...


@dataclass(frozen=True, slots=True)
class InputProblem:
    """One reason a tool's arguments break its input schema.

    ``field`` is the dotted path of the offending argument (``depth``, ``filters.bogus``,
    ``changed_refs.0.kind``); ``error_code`` is the closed code an adapter should answer.
    """

    field: str | None
    error_code: str
    message: str
    unknown: bool = False  # the field is not an argument (or filter key) the tool accepts


# The top-level argument an error is about decides its code; anything else is generic.
_FIELD_CODES = {
    "depth": "invalid_depth",
    "filters": "invalid_filter",
    "sort_by": "invalid_sort",
    "sort_order": "invalid_sort",
    "cursor": "invalid_cursor",
    "rev_range": "invalid_rev_range",
    "changed_refs": "invalid_changed_refs",
    "entity_ref": "invalid_entity_ref",
    "entity": "invalid_entity_ref",
    "entity_refs": "invalid_entity_ref",
    "window": "invalid_filter",
    "repo": "invalid_repo",
}


def field_code(field: str | None) -> str:
    """The error code for a bad value of ``field`` (dotted; its top-level name decides)."""
    return _FIELD_CODES.get(field.split(".")[0], "invalid_argument") if field else \
        "invalid_argument"


def _problem(error: ValidationError) -> InputProblem:
    path = [str(part) for part in error.absolute_path]
    if error.validator == "required" and isinstance(error.instance, dict):
        path += [name for name in error.validator_value if name not in error.instance][:1]
        if len(path) == 1:
            return InputProblem(path[0], "missing_required_field", error.message)
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        path += sorted(name for name in error.instance if name not in allowed)[:1]
        if len(path) == 1:
            return InputProblem(path[0], "invalid_argument", error.message, unknown=True)
    code = _FIELD_CODES.get(path[0], "invalid_argument") if path else "invalid_argument"
    return InputProblem(".".join(path) or None, code, error.message)


def parse_input(spec: InputContract, arguments: Any
                ) -> tuple[BaseModel | None, list[InputProblem]]:
    """The tool's validated input model, or the problems with ``arguments`` (most relevant
    first) against the tool's input schema.

    The strict pydantic input model accepts exactly what the schema accepts (the contract
    tests hold both to the same cases), so valid arguments take its fast path: 50,000 churn
    refs check in tens of milliseconds, where the JSON Schema walk takes seconds. Only a
    rejection walks the schema, whose error paths name real arguments (pydantic's carry
    union tags).
    """
    from pydantic import ValidationError as PydanticValidationError

    # A list past its maxItems is rejected before anything walks it: a million bad items
    # would otherwise be a million collected errors (seconds and gigabytes).
    oversized = oversized_list(_parsed(spec.input_schema_file), arguments)
    if oversized is not None:
        return None, [oversized]
    try:
        return spec.input_model.model_validate(arguments), []
    except PydanticValidationError as exc:
        rejected = exc
    from jsonschema.exceptions import best_match  # only a rejection walks the schema

    errors = list(islice(_validator(spec.input_schema_file).iter_errors(arguments),
                         _MAX_SCHEMA_ERRORS))
    if not errors:  # stricter than the schema (e.g. 2.0 for an integer): report the model's
        return None, [_model_problem(error) for error in rejected.errors()]
    first = best_match(errors)
    ordered = [first, *(e for e in errors if e is not first)]
    return None, [_problem(error) for error in ordered]


_MAX_SCHEMA_ERRORS = 20


def oversized_list(schema: dict[str, Any], value: Any) -> InputProblem | None:
    """The first list in ``value`` longer than the ``maxItems`` its schema gives it
    (objects followed through ``properties``, ``$ref`` and ``anyOf``, a few levels deep)."""
    defs = schema.get("$defs", {})

    def walk(node: Any, item: Any, path: list[str], depth: int) -> InputProblem | None:
        if depth > 10 or not isinstance(node, dict):
            return None
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return walk(defs.get(ref.removeprefix("#/$defs/")), item, path, depth + 1)
        for alternative in node.get("anyOf", []):
            found = walk(alternative, item, path, depth + 1)
            if found is not None:
                return found
        limit = node.get("maxItems")
        if isinstance(item, list) and isinstance(limit, int) and len(item) > limit:
            code = _FIELD_CODES.get(path[0], "invalid_argument") if path else "invalid_argument"
            return InputProblem(".".join(path) or None, code,
                                f"{len(item)} items; at most {limit} are accepted")
        if isinstance(item, dict):
            for key, sub in node.get("properties", {}).items():
                if key in item:
                    found = walk(sub, item[key], [*path, key], depth + 1)
                    if found is not None:
                        return found
        return None

    return walk(schema, value, [], 0)


def validate_input(spec: InputContract, arguments: Any) -> list[InputProblem]:
    """The problems with ``arguments`` for the tool; empty when valid."""
    return parse_input(spec, arguments)[1]


def _model_problem(error: ErrorDetails) -> InputProblem:
    # Deeper loc parts may be pydantic union tags, not keys: name the top-level argument.
    field = str(error["loc"][0]) if error["loc"] else None
    code = _FIELD_CODES.get(field, "invalid_argument") if field else "invalid_argument"
    return InputProblem(field, code, error["msg"])
