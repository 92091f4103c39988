"""The ``warpline.error.v1`` object carried in a JSON-RPC error's ``data`` (and printed by
the CLI on bad input). Built from a ``WarplineError`` with ``ErrorEnvelope.from_error``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from warpline.errors import ERROR_CODES, WarplineError
from warpline.models.common import WireModel
from warpline.models.vocab import Retryability


def _known_code(code: str) -> str:
    if code not in ERROR_CODES:
        raise ValueError(f"unknown error_code {code!r}; expected one of {ERROR_CODES}")
    return code


ErrorCode = Annotated[
    str,
    AfterValidator(_known_code),
    Field(json_schema_extra={"enum": list(ERROR_CODES)}),
]


class ErrorDetails(BaseModel):
    """Free-form details; message is always present."""

    model_config = ConfigDict(defer_build=True, extra="allow",
                              json_schema_serialization_defaults_required=True)

    message: str


class ErrorEnvelope(WireModel):
    """A recoverable warpline error. Switch on error_code, never on message text."""

    schema_: Literal["warpline.error.v1"] = Field(default="warpline.error.v1", alias="schema")
    ok: Literal[False] = False
    error_code: ErrorCode
    rejected_field: str | None = Field(description="The argument at fault, when there is one.")
    retryability: Retryability
    hint: str = Field(description="What to change, naming the field and value.")
    details: ErrorDetails

    @classmethod
    def from_error(cls, error: WarplineError) -> ErrorEnvelope:
        return cls.model_validate(error.to_payload())
