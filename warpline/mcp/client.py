"""A deliberately raw MCP stdio client (JSON lines, no SDK), so what went over the wire is
exactly what a report shows: ``warpline mcp-smoke``, ``warpline doctor`` and the protocol
tests drive ``warpline-mcp`` with it."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

Message = dict[str, Any]


class McpProcess:
    """One spawned MCP stdio server, spoken to in raw JSON lines."""

    def __init__(self, command: Sequence[str], *, cwd: Path | None = None,
                 env: dict[str, str] | None = None, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._stderr: IO[bytes] = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(list(command), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._stderr, cwd=cwd,
                                     env=env)
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: object) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def read_line(self, timeout: float | None = None) -> bytes | None:
        """The next raw stdout line; ``None`` at EOF. Raises ``TimeoutError``."""
        try:
            return self._lines.get(timeout=self.timeout if timeout is None else timeout)
        except queue.Empty:
            raise TimeoutError("no reply from the MCP server in time") from None

    def read_message(self, timeout: float | None = None) -> Any:
        line = self.read_line(timeout)
        if line is None:
            raise EOFError("the MCP server closed stdout")
        return json.loads(line)

    def request(self, method: str, params: object = None) -> Message:
        """Send a request and return its full reply (``result`` or ``error``)."""
        self._next_id += 1
        message: Message = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        reply = self.read_message()
        if not isinstance(reply, dict) or reply.get("id") != self._next_id:
            raise ValueError(f"unexpected reply to {method}: {reply!r}")
        return reply

    def notify(self, method: str, params: object = None) -> None:
        message: Message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def close(self, timeout: float = 10.0) -> int:
        """Close stdin (EOF), wait for the exit status; kill if it does not come."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self._reader.join(timeout=timeout)
        return code

    def stderr_text(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    def __enter__(self) -> McpProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()


def server_command() -> list[str]:
    """The installed ``warpline-mcp`` when on PATH, else this interpreter's module form."""
    installed = shutil.which("warpline-mcp")
    return [installed] if installed else [sys.executable, "-I", "-m", "warpline.mcp"]


def initialize(server: McpProcess, version: str = "2025-06-18") -> Message:
    reply = server.request("initialize", {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "warpline-mcp-smoke", "version": "1"}})
    server.notify("notifications/initialized")
    return reply


def envelope_of(result: Any) -> Any:
    """The envelope of a ``tools/call`` result: its one copy, the JSON text (``None`` when
    the result carries none)."""
    try:
        return json.loads(result["content"][0]["text"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
