"""One ``tools/call`` to a real ``warpline-mcp`` process and its reply, read strictly."""

from __future__ import annotations

import json
from typing import Any

from warpline.cli.smoke import McpProcess
from warpline.contracts_io import validate_envelope


def strict(line: bytes | None) -> Any:
    assert line is not None, "the server closed stdout"

    def refuse(name: str) -> Any:
        raise AssertionError(f"non-JSON constant {name} in a reply: {line!r}")

    return json.loads(line, parse_constant=refuse)


def call(server: McpProcess, tool: str, arguments: Any) -> dict[str, Any]:
    server.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                 "params": {"name": tool, "arguments": arguments}})
    reply: dict[str, Any] = strict(server.read_line())
    return reply


def code(reply: dict[str, Any]) -> str:
    assert "error" in reply, reply
    data = reply["error"]["data"]
    validate_envelope(data)
    return str(data["error_code"])
