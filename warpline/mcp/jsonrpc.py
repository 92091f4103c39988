"""JSON-RPC 2.0 error codes and ``RpcError``: shared by the stdio loop and the tool adapter."""

from __future__ import annotations

from typing import Any

from warpline.errors import InternalError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class RpcError(Exception):
    """A JSON-RPC error response; ``data`` is a ``warpline.error.v1`` object when present."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def internal_error(exc: BaseException) -> RpcError:
    """``-32603`` carrying a ``warpline.error.v1`` ``internal_error``; the traceback is logged."""
    return RpcError(INTERNAL_ERROR, "internal error", InternalError(
        "warpline hit a defect answering this call; the server's stderr has the traceback. "
        "Report it rather than retrying.", details={"exception": type(exc).__name__},
    ).to_payload())
