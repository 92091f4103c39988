"""``warpline mcp-smoke --repo PATH``: check an installation by talking to ``warpline-mcp``.

Spawns the installed server (or ``python -m warpline.mcp``), runs the handshake, lists the
tools, calls each implemented tool with minimal arguments plus a bad-input case, and prints
a readable report. Exit status 0 only when every check passed.

It speaks through ``warpline.mcp.client.McpProcess``, a deliberately raw client (JSON lines,
no SDK), so the report shows exactly what went over the wire.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from warpline.mcp.client import McpProcess, Message, envelope_of, initialize, server_command

__all__ = ["McpProcess", "initialize", "main_smoke", "minimal_arguments", "run_smoke",
           "server_command"]


def minimal_arguments(tool: str, repo: str, refs: list[dict[str, str]]) -> Message | None:
    """Smallest valid arguments per endorsed name, from its row's ``example`` (a tool this
    build does not know: ``repo`` alone); ``None`` = do not call (it would write)."""
    from warpline.registry import lookup  # the table only when the smoke runs

    spec = lookup(tool)
    if spec is None:
        return {"repo": repo}
    return None if spec.example is None else {"repo": repo, **spec.example(refs)}


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
    listed = [t for t in tools if "warpline/inventory" in t.get("_meta", {})]
    endorsed = [t["name"] for t in listed]  # a shim lists no _meta: it is an alias
    names = {t["name"] for t in tools}
    shims = {t["_meta"]["warpline/inventory"]["shim"] for t in listed}
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
        envelope = envelope_of(reply.get("result"))
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
