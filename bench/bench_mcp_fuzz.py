"""The long MCP fuzz (issue 38): tens of thousands of seeded hostile lines into ONE
``warpline-mcp`` process, counted rather than asserted line by line.

The lines are ``tests/test_mcp_fuzz.py``'s generator (valid requests, mutated arguments,
notifications, batches, stray responses, junk) plus instants at the ends of what a
four-digit year can say (``0001-...``, ``0999-...``, ``9999-12-31T23:59:59Z``). For every
line: was a reply owed and did it come (a hang is a line whose reply did not come within
the timeout), is the reply strict JSON, does every error object validate, is any error
``internal_error``, how many tool results carry an envelope.

    python bench/bench_mcp_fuzz.py --lines 70000 [--seed N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from tests.test_mcp_fuzz import (  # noqa: E402
    SEED,
    Generator,
    _check,
    _strict,
    exchange,
    fuzz_env,
    fuzz_repo,
)
from warpline.cli.smoke import McpProcess  # noqa: E402

INSTANTS = ["0001-01-01T00:00:00Z", "0999-06-01T00:00:00Z", "0999-12-31T23:59:59Z",
            "9999-12-31T23:59:59Z", "1000-01-01T00:00:00Z", "1969-12-31T23:59:59Z"]


class EdgeGenerator(Generator):
    """The test's generator, with windows and filters at the ends of the calendar."""

    def argument(self, name: str) -> Any:
        if name in ("window", "filters") and self.rng.random() < 0.3:
            since, until = sorted(self.rng.sample(INSTANTS, 2))
            return {"since": since, "until": until}
        return super().argument(name)


def _tally(reply: Any) -> tuple[int, int]:
    """(internal errors, tool results carrying an envelope) in one reply: a JSON-RPC error
    ``-32603`` or carrying ``internal_error``, or a tool result whose envelope is one."""
    internal = envelopes = 0
    for item in reply if isinstance(reply, list) else [reply]:
        if not isinstance(item, dict):
            continue
        error = item.get("error")
        if isinstance(error, dict):
            data = error.get("data")
            internal += error.get("code") == -32603 or (
                isinstance(data, dict) and data.get("error_code") == "internal_error")
        result = item.get("result")
        blocks = result.get("content") if isinstance(result, dict) else None
        if isinstance(blocks, list) and blocks and isinstance(blocks[0], dict):
            try:  # a tool's result: the envelope once, as JSON text
                content = json.loads(str(blocks[0].get("text")))
            except ValueError:
                continue
            if isinstance(content, dict) and "schema" in content:
                envelopes += 1
                internal += content.get("error_code") == "internal_error"
    return internal, envelopes


def run(lines: int, seed: int, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as tmp:
        return _run(Path(tmp), lines, seed, timeout)


def _run(work: Path, lines: int, seed: int, timeout: float) -> dict[str, Any]:
    root = fuzz_repo(work)
    env = {**fuzz_env(), "WARPLINE_BACKGROUND_BACKFILL": "0"}
    generator = EdgeGenerator(random.Random(seed), root)
    counts = {"lines": 0, "replies": 0, "silent": 0, "hangs": 0, "non_json": 0,
              "internal_error": 0, "failed_checks": 0, "valid_envelopes": 0, "exited": 0}
    failures: list[str] = []
    started = time.monotonic()
    with McpProcess([sys.executable, "-m", "warpline.mcp"], cwd=work, env=env,
                    timeout=timeout) as server:
        for number, line, expected, batch, raw in exchange(server, generator, lines):
            counts["lines"] += 1
            if expected is None:
                counts["silent"] += 1
                continue
            if raw is None:
                counts["hangs" if server.proc.poll() is None else "exited"] += 1
                failures.append(f"{number}: no reply: {line[:200]!r}")
                break
            counts["replies"] += 1
            try:
                reply = _strict(raw)
            except (AssertionError, ValueError):
                counts["non_json"] += 1
                failures.append(f"{number}: not strict JSON: {raw[:200]!r}")
                continue
            internal, envelopes = _tally(reply)
            counts["internal_error"] += internal
            counts["valid_envelopes"] += envelopes
            if internal and len(failures) < 50:
                failures.append(f"{number}: internal_error: {raw[:300]!r} <- {line[:300]!r}")
            try:
                _check(reply, expected, batch)
            except (AssertionError, Exception) as exc:  # counted, the run goes on
                counts["failed_checks"] += 1
                if len(failures) < 50:
                    failures.append(f"{number}: {str(exc)[:300]} <- {line[:200]!r}")
        if not counts["hangs"] and not counts["exited"]:
            server.send({"jsonrpc": "2.0", "id": "final-ping", "method": "ping"})
            counts["final_ping"] = int(_strict(server.read_line() or b"null") == {
                "jsonrpc": "2.0", "id": "final-ping", "result": {}})
    return {"seed": seed, "counts": counts, "seconds": round(time.monotonic() - started, 1),
            "failures": failures}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=70_000)
    parser.add_argument("--seed", type=int, default=SEED + 38)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report = run(args.lines, args.seed, args.timeout)
    text = json.dumps(report, indent=1)
    if args.json:
        args.json.write_text(text)
    print(text)
    c = report["counts"]
    return 0 if not (c["hangs"] or c["non_json"] or c["internal_error"] or c["exited"]
                     or c["failed_checks"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
