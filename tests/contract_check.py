"""Validate every envelope a test produces against its frozen contract file.

    from tests.contract_check import assert_valid_envelope
    assert_valid_envelope(envelope)   # success or error envelope, picked by its "schema"
"""

from __future__ import annotations

from typing import Any

from jsonschema import ValidationError

from warpline.contracts_io import validate_envelope


def assert_valid_envelope(obj: Any) -> None:
    """Fail the test unless ``obj`` is an envelope that satisfies its contract."""
    assert isinstance(obj, dict), f"an envelope is a JSON object, got {type(obj).__name__}"
    try:
        validate_envelope(obj)
    except ValueError as exc:
        raise AssertionError(str(exc)) from exc
    except ValidationError as exc:
        where = "/".join(str(part) for part in exc.absolute_path) or "<root>"
        raise AssertionError(
            f"{obj.get('schema')} envelope breaks its contract at {where}: {exc.message}"
        ) from exc
