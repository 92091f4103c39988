"""``warpline mcp-smoke --repo PATH``: check an installation by talking to ``warpline-mcp``.

Spawns the installed server (or ``python -m warpline.mcp``), runs the handshake, lists the
tools, calls each implemented tool with minimal arguments plus a bad-input case, and prints
a readable report. Exit status 0 only when every check passed.

``McpProcess`` is a deliberately raw client (JSON lines, no SDK) so the report shows exactly
what went over the wire; the protocol tests drive the server with it too.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
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
    return [installed] if installed else [sys.executable, "-m", "warpline.mcp"]


def initialize(server: McpProcess, version: str = "2025-06-18") -> Message:
    reply = server.request("initialize", {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "warpline-mcp-smoke", "version": "1"}})
    server.notify("notifications/initialized")
    return reply


def minimal_arguments(tool: str, repo: str, refs: list[dict[str, str]]) -> Message | None:
    """Smallest valid arguments per endorsed name; ``None`` = do not call (it would write)."""
    table: dict[str, Callable[[], Message | None]] = {
        "warpline_change_list": lambda: {"repo": repo, "limit": 5},
        "warpline_entity_timeline_get": lambda: {
            "repo": repo, "entity_ref": refs[0] if refs else {"kind": "path",
                                                               "value": "README.md"}},
        "warpline_entity_churn_count_get": lambda: {"repo": repo, "entity_refs": refs[:5]},
        "warpline_impact_radius_get": lambda: {"repo": repo, "changed_refs": refs[:5]},
        "warpline_reverify_worklist_get": lambda: {"repo": repo, "changed_refs": refs[:5]},
        "warpline_edge_snapshot_capture": lambda: {"repo": repo, "dry_run": True},
        "warpline_verification_record": lambda: None,
        "warpline_project_status_get": lambda: {"repo": repo},
    }
    return table.get(tool, lambda: {"repo": repo})()


class Report:
    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.failures = 0
        self.checks = 0

    def line(self, ok: bool | None, what: str, detail: str = "") -> None:
        status = "skip" if ok is None else ("ok" if ok else "FAIL")
        if ok is not None:
            self.checks += 1
            self.failures += not ok
        print(f"  {status:<5} {what:<46} {detail}".rstrip(), file=self.out)


def run_smoke(repo: Path, command: list[str] | None = None, *, out: IO[str] | None = None,
              timeout: float = 60.0) -> int:
    stream = out or sys.stdout
    command = command or server_command()
    repo_arg = str(repo.expanduser().resolve())
    print(f"warpline mcp-smoke: {' '.join(command)}\n  repo: {repo_arg}", file=stream)
    report = Report(stream)
    try:
        with McpProcess(command, timeout=timeout) as server:
            try:
                _checks(server, repo_arg, report)
            except (TimeoutError, EOFError, ValueError, OSError, KeyError, TypeError,
                    AttributeError) as exc:
                report.line(False, "conversation", f"{type(exc).__name__}: {exc}")
            code = server.close()
            report.line(code == 0, "EOF -> clean exit", f"exit status {code}")
            if report.failures:
                tail = server.stderr_text().strip().splitlines()[-15:]
                if tail:
                    print("  server stderr (last lines):", file=stream)
                    print("\n".join(f"    {line}" for line in tail), file=stream)
    except OSError as exc:
        report.line(False, "spawn", f"{command[0]}: {exc}")
    verdict = "all passed" if not report.failures else f"{report.failures} failed"
    print(f"result: {report.checks} checks, {verdict}", file=stream)
    return 1 if report.failures else 0


def _checks(server: McpProcess, repo: str, report: Report) -> None:
    started = time.perf_counter()
    reply = initialize(server)
    result = reply.get("result", {})
    info = result.get("serverInfo", {})
    report.line(info.get("name") == "warpline" and "tools" in result.get("capabilities", {}),
                "initialize", f"protocol {result.get('protocolVersion')}, "
                f"warpline {info.get('version')}, {_ms(started)}")
    report.line("result" in server.request("ping"), "ping")
    tools = server.request("tools/list").get("result", {}).get("tools", [])
    endorsed = [t["_meta"]["warpline/inventory"]["endorsed"] for t in tools
                if t["_meta"]["warpline/inventory"]["alias_of"] is None]
    names = {t["name"] for t in tools}
    shims = {t["_meta"]["warpline/inventory"]["shim"] for t in tools}
    report.line(bool(endorsed) and len(names) == 2 * len(endorsed) and shims <= names,
                "tools/list", f"{len(endorsed)} tools, {len(names)} names")
    refs: list[dict[str, str]] = []
    for tool in endorsed:
        arguments = minimal_arguments(tool, repo, refs)
        if arguments is None:
            report.line(None, f"tools/call {tool}", "not called: it writes to the store")
            continue
        started = time.perf_counter()
        reply = server.request("tools/call", {"name": tool, "arguments": arguments})
        envelope = reply.get("result", {}).get("structuredContent")
        ok = isinstance(envelope, dict) and envelope.get("ok") is True
        detail = _ms(started) if ok else _describe_error(reply)
        report.line(ok, f"tools/call {tool}", detail)
        if ok and tool == "warpline_change_list":
            refs = [{"kind": "locator", "value": item["entity"]["locator"]}
                    for item in envelope["data"]["items"] if item["entity"].get("locator")]
    bad = server.request("tools/call", {"name": "changed",
                                        "arguments": {"repo": repo, "limit": "five"}})
    data = bad.get("error", {}).get("data", {})
    report.line(bad.get("error", {}).get("code") == -32602 and bool(data.get("error_code"))
                and data.get("rejected_field") == "limit", "bad input -> -32602",
                f"error_code {data.get('error_code')}, rejected_field {data.get('rejected_field')}")
    unknown = server.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    report.line(unknown.get("error", {}).get("code") == -32601, "unknown tool -> -32601")


def _describe_error(reply: Message) -> str:
    error = reply.get("error")
    if not isinstance(error, dict):
        return f"unexpected reply {json.dumps(reply)[:120]}"
    data = error.get("data") or {}
    return f"{error.get('code')} {data.get('error_code')}: {data.get('hint', error.get('message'))}"


def _ms(started: float) -> str:
    return f"{(time.perf_counter() - started) * 1000:.0f} ms"


def main_smoke(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warpline mcp-smoke", description=__doc__)
    parser.add_argument("--repo", type=Path, default=Path(os.curdir),
                        help="git repository to query (default: the current directory)")
    parser.add_argument("--command", default=None,
                        help="server command line to spawn, e.g. 'python -m warpline.mcp' "
                        "(default: warpline-mcp from PATH)")
    args = parser.parse_args(argv)
    return run_smoke(args.repo, shlex.split(args.command) if args.command else None)


if __name__ == "__main__":
    sys.exit(main_smoke())


def add_parsers(sub: Any, common: Any) -> None:
    """``warpline mcp-smoke``: check an installation end to end through a real server."""
    p = sub.add_parser("mcp-smoke", help="spawn warpline-mcp and exercise every tool")
    p.add_argument("--repo", default=".", help="repository to call the tools on")
    p.add_argument("--command", help="server command line (default: the installed "
                   "warpline-mcp, else python -m warpline.mcp)")
    p.set_defaults(run=_run_from_cli)


def _run_from_cli(args: argparse.Namespace) -> int:
    command = shlex.split(args.command) if args.command else None
    return run_smoke(Path(args.repo).resolve(), command)
