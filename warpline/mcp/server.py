"""The MCP stdio loop: newline-delimited JSON-RPC 2.0 on stdin/stdout.

Protocol decisions (the issue and the tool reference are silent on these):

* One message per line, UTF-8, written compact and ASCII-only (``ensure_ascii``) so no
  exotic line separator can split a message; flushed per message. Blank lines are skipped.
* Batches (a JSON array) are answered per JSON-RPC 2.0, which MCP 2025-03-26 requires:
  each element is handled in order and the replies go out as one array line; an empty
  batch is ``-32600``; a batch of notifications gets no reply.
* A line that is not JSON (or not UTF-8, or uses NaN/Infinity) is ``-32700`` with
  ``id: null``; a JSON value that is not a request object is ``-32600``. A message with
  ``result``/``error`` and no ``method`` is a response to a request we never sent: logged
  and dropped.
* Notifications (a valid request object without ``id``) are never answered, even when
  their method is unknown or their params are wrong. An object without ``id`` that is not a
  request at all (``{}``, no ``jsonrpc: "2.0"``, no string ``method``) is no notification:
  ``-32600`` with ``id: null``, as JSON-RPC 2.0 says (inside a batch too).
* No initialization gate: the server holds no session state (``repo`` is per call), so
  ``tools/list`` and ``tools/call`` answer before ``initialize`` too.
* ``initialize`` echoes a supported ``protocolVersion``; anything else (including none)
  gets the newest we speak, and the client decides whether to continue.
* stdout is the wire and nothing else may reach it: ``main`` moves the real stdout to a
  private descriptor and points descriptor 1 (and ``sys.stdout``) at stderr, so a stray
  ``print`` (or a child process inheriting stdout) lands in stderr.

Nothing here imports pygit2/pydantic/networkx/jsonschema: those load on the first tool call.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from warpline import settings
from warpline._version import __version__
from warpline.errors import InvalidArgument
from warpline.mcp import limits
from warpline.mcp.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RpcError,
    internal_error,
)

log = logging.getLogger("warpline.mcp")

PROTOCOL_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18")
LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[-1]

INSTRUCTIONS = (
    "warpline answers questions about entity-level change history of a git repository. "
    "Call `changed` first (no arguments: my work in the repository the server runs in, "
    "i.e. uncommitted changes plus commits not yet on the upstream; `rev_range` for "
    "another range, `all_history: true` for everything), then follow the ready-to-call "
    "`next_actions` in each answer. Every answer is one JSON object, sent as text: {schema, "
    "ok, query, data, warnings[], next_actions{tools[{tool, arguments, why}], "
    "commands[{command, why}]}, enrichment, meta}; read `warnings` (what is missing or "
    "unknown) before trusting `data`. Switch on `error.data.error_code`, never on message "
    "text. No tool writes your files, the git index, branches or tags.")


def instructions() -> str:
    """The instructions with what every tool shares, said once: the arguments they read
    alike and the shapes their answers share (the listing names them, not repeats them)."""
    from warpline.contracts_io import shared_contract
    from warpline.mcp.wire_schema import shared_arguments, shared_shapes
    from warpline.registry import TOOLS

    shapes = shared_shapes([shared_contract(spec.output_schema_file) for spec in TOOLS])
    return f"{INSTRUCTIONS} {shared_arguments()} Shared shapes: {shapes}."


Message = dict[str, Any]


def negotiate(requested: object) -> str:
    return requested if isinstance(requested, str) and requested in PROTOCOL_VERSIONS else (
        LATEST_PROTOCOL_VERSION)


def _initialize(params: dict[str, Any]) -> dict[str, Any]:
    return {
        "protocolVersion": negotiate(params.get("protocolVersion")),
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "warpline", "version": __version__},
        "instructions": instructions(),
    }


def _ping(params: dict[str, Any]) -> dict[str, Any]:
    return {}


def _tools_list(params: dict[str, Any]) -> dict[str, Any]:
    # One page: we never issue a cursor, so a client's cursor can only mean "from the start".
    from warpline.mcp.tools import list_tools

    return {"tools": list_tools()}


def _tools_call(params: dict[str, Any]) -> dict[str, Any]:
    from warpline.mcp.tools import call

    return call(params)


_METHODS = {
    "initialize": _initialize,
    "ping": _ping,
    "tools/list": _tools_list,
    "tools/call": _tools_call,
}


def _valid_id(value: object) -> bool:
    return value is None or isinstance(value, str) or (
        isinstance(value, int | float) and not isinstance(value, bool))


def handle(message: object) -> Message | None:
    """Answer one decoded JSON-RPC message; ``None`` when no reply is due."""
    if not isinstance(message, dict):
        return _error(None, RpcError(INVALID_REQUEST, "invalid request: not a JSON object"))
    method = message.get("method")
    if "method" not in message and ("result" in message or "error" in message):
        log.warning("dropping a JSON-RPC response to a request this server never sent")
        return None
    is_notification = "id" not in message
    request_id = message.get("id")
    if not is_notification and not _valid_id(request_id):
        return _error(None, RpcError(INVALID_REQUEST, "invalid request: bad id"))
    if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
        # Not a Request object at all, so not a notification either (a notification is a
        # valid Request without an id): JSON-RPC 2.0 answers it -32600 with id null.
        return _error(request_id, RpcError(
            INVALID_REQUEST, "invalid request: needs jsonrpc \"2.0\" and a string method"))
    if is_notification:
        log.debug("notification %s", method)
        return None
    try:
        result = _dispatch(method, message.get("params"))
    except RpcError as exc:
        return _error(request_id, exc)
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _dispatch(method: str, params: object) -> dict[str, Any]:
    handler = _METHODS.get(method)
    if handler is None:
        raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "invalid params: params must be an object",
                       InvalidArgument("`params` must be a JSON object (or left out).",
                                       field="params", value=type(params).__name__).to_payload())
    try:
        return handler(params)
    except RpcError:
        raise
    except Exception as exc:  # the last line of defence: answer, log, keep serving
        log.exception("unexpected failure in %s", method)
        raise internal_error(exc) from None


def _error(request_id: object, exc: RpcError) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "error": exc.to_error()}


def handle_line(line: bytes | limits.Oversized) -> Message | list[Message] | None:
    """Answer one raw line from stdin (bounded: ``warpline.mcp.limits``)."""
    if isinstance(line, limits.Oversized):
        return _error(None, RpcError(INVALID_REQUEST, "invalid request: message too large",
                                     limits.too_large_payload("message", line.size,
                                                              limits.MAX_LINE_BYTES)))
    try:
        message = limits.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return _error(None, RpcError(PARSE_ERROR, "parse error"))
    if isinstance(message, list):
        if not message:
            return _error(None, RpcError(INVALID_REQUEST, "invalid request: empty batch"))
        if len(message) > limits.MAX_BATCH:
            return _error(None, RpcError(INVALID_REQUEST, "invalid request: batch too long",
                                         limits.too_large_payload("batch", len(message),
                                                                  limits.MAX_BATCH)))
        replies = [reply for item in message if (reply := handle(item)) is not None]
        return replies or None
    return handle(message)


def encode(reply: Message | list[Message]) -> bytes:
    return limits.dumps(reply)


def serve(stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Run the loop until EOF on ``stdin``; returns the exit status (always 0)."""
    for line in limits.lines(stdin):
        if isinstance(line, bytes) and not line.strip():
            continue
        try:
            reply = handle_line(line)
            if reply is None:
                continue
            data = encode(reply)
        except Exception as exc:  # handle() catches everything it knows of; belt and braces
            log.exception("failed to answer a message")
            data = encode(_error(None, internal_error(exc)))
        try:
            stdout.write(data)
            stdout.flush()
        except (BrokenPipeError, ValueError):  # the client went away: nothing left to answer
            return 0
    return 0


@contextmanager
def protocol_stdout() -> Iterator[IO[bytes]]:
    """Yield the real stdout as a binary stream; meanwhile fd 1 and ``sys.stdout`` are stderr."""
    saved_stdout = sys.stdout
    sys.stdout.flush()
    try:
        real_fd = os.dup(1)
    except OSError:  # no usable descriptor 1 (embedded use): fall back to the buffer itself
        sys.stdout = sys.stderr
        try:
            yield saved_stdout.buffer
        finally:
            sys.stdout = saved_stdout
        return
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    wire = os.fdopen(real_fd, "wb", buffering=0)
    try:
        yield wire
    finally:
        sys.stdout = saved_stdout
        os.dup2(real_fd, 1)
        wire.close()


def configure_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("warpline-mcp %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level())
    logging.captureWarnings(True)


def main() -> int:
    configure_logging()
    with protocol_stdout() as wire:
        try:
            return serve(sys.stdin.buffer, wire)
        except KeyboardInterrupt:
            return 0
