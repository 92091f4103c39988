"""A bounded, seeded fuzz of ONE long-lived ``warpline-mcp`` process (issue 13).

A few thousand generated lines (fixed seed: the same lines every run) mix valid requests,
tool calls with mutated arguments (wrong types, overflowing and huge numbers, deep nesting,
odd strings, garbage cursors, huge key ids, long lists), notifications, batches, bad ids,
stray responses and lines that are not JSON at all. Every line is answered (or not) before
the next is sent, so a reply is matched to the line that caused it. Asserted throughout:

* every reply is strict JSON (no ``NaN``/``Infinity`` tokens);
* a request gets exactly one reply with its id; a notification (and a batch of only
  notifications, and a stray response) gets none;
* every ``-32602`` carries a ``warpline.error.v1`` object that validates against its
  contract; no error anywhere is ``internal_error`` (``-32603``);
* at the end the same process still answers ``ping``.

The repository is real (commits made with pygit2) and so is the store the calls fill.
"""

from __future__ import annotations

import json
import os
import random
import string
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.gitfixture import FixtureRepo
from warpline.cli.smoke import McpProcess
from warpline.contracts_io import load_contract, validate_envelope

SEED = 20261201
LINES = 3000
TOOLS = [row["endorsed"] for row in load_contract("tools.json")["tools"]]
SHIMS = [row["shim"] for row in load_contract("tools.json")["tools"]]


def _strict(line: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"non-JSON constant {name} in a reply: {line[:300]!r}")

    return json.loads(line, parse_constant=refuse)


class Generator:
    def __init__(self, rng: random.Random, repo: Path) -> None:
        self.rng = rng
        self.repo = str(repo)
        self.next_id = 0
        self.properties = {tool: sorted(load_contract(f"{tool}.input.json")["properties"])
                           for tool in TOOLS}

    def new_id(self) -> int | str:
        self.next_id += 1
        return self.next_id if self.rng.random() < 0.7 else f"req-{self.next_id}"

    # -- values ---------------------------------------------------------------------------
    def scalar(self) -> Any:
        r = self.rng
        return r.choice([
            None, True, False, 0, -1, 1, 2**63, -(2**63) - 1, 2**64 + 7, 10**30, 0.5, -2.5,
            1e308, "", " ", "HEAD", "HEAD~1..HEAD", "..", "HEAD~999999", "main", "\x00",
            "é", "😀" * 3, "a" * r.randint(1, 3000), "python:function:pkg.mod.f", "pkg/mod.py",
            "pkg.mod.f", "12345678901234567890123", "../../etc/passwd", "/", "-1",
            "2026-06-25T10:00:00Z", "not-a-date", "".join(r.choices(string.printable, k=40)),
        ])

    def value(self, depth: int = 0) -> Any:
        r = self.rng.random()
        if depth > 3 or r < 0.55:
            return self.scalar()
        if r < 0.75:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 6))]
        if r < 0.9:
            return {self.key(): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}
        nest = self.rng.randint(50, 400)  # deep, but within what a JSON parser accepts
        return json.loads("[" * nest + "]" * nest)

    def key(self) -> str:
        return self.rng.choice(["kind", "value", "paths", "since", "until", "actors",
                                "change_kinds", "entity_kinds", "bogus", "", "o", "q"])

    def argument(self, name: str) -> Any:
        r = self.rng
        special: dict[str, Callable[[], Any]] = {
            "repo": lambda: r.choice([self.repo] * 6 + ["relative", "/nonexistent", 5, ""]),
            "rev_range": lambda: r.choice(["HEAD~1..HEAD", "HEAD~2..HEAD", "HEAD..HEAD",
                                           "nope..HEAD", "HEAD...HEAD~1", self.scalar()]),
            "cursor": lambda: r.choice(["", "e30", "eyJvIjogMX0", "!!!", "W1tbW1tbXV1dXV1d",
                                        "eyJvIjo5OTk5OTk5OTk5OTk5OTk5OTk5OSwicSI6IngifQ",
                                        self.scalar()]),
            "filters": lambda: r.choice([
                {"paths": [f"d{i}" for i in range(r.choice([1, 10, 1000]))]},
                {"paths": ["pkg"], "since": "2000-01-01T00:00:00Z"},
                {"actors": ["alice"]}, {"since": "garbage"}, self.value(1)]),
            "changed_entity_key_ids": lambda: r.choice([[1], [2**63], [2**64, -5],
                                                        list(range(300)), self.value(1)]),
            "entity_refs": lambda: r.choice([
                ["pkg.mod.f"], [{"kind": "warpline_entity_key_id", "value": str(2**70)}],
                [{"kind": "locator", "value": "python:function:pkg.mod.f"}],
                [1] * r.choice([3, 60_000]), self.value(1)]),
            "depth": lambda: r.choice([0, 1, 2, 5, 6, -1, 2.0, "2", 10**20]),
            "limit": lambda: r.choice([1, 2, 50, 0, -3, 10**12, 1.5, "10"]),
        }
        return special.get(name, self.value)()

    def arguments(self, tool: str) -> Any:
        if self.rng.random() < 0.05:
            return self.value()
        names = self.properties[tool]
        chosen = self.rng.sample(names, self.rng.randint(0, min(4, len(names))))
        args = {name: self.argument(name) for name in chosen}
        if self.rng.random() < 0.8:
            args["repo"] = self.argument("repo")
        if self.rng.random() < 0.05:
            args[self.rng.choice(["bogus", "", "__proto__"])] = self.value()
        return args

    # -- messages --------------------------------------------------------------------------
    def request(self) -> dict[str, Any]:
        r = self.rng.random()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.new_id()}
        if r < 0.55:
            tool = self.rng.choice(TOOLS + SHIMS + ["nope", ""])
            message.update(method="tools/call", params={"name": tool,
                                                        "arguments": self.arguments(
                                                            tool if tool in TOOLS else
                                                            self.rng.choice(TOOLS))})
            if self.rng.random() < 0.05:
                message["params"] = self.rng.choice([[1], "x", 3, {"name": 5},
                                                     {"name": "changed", "arguments": [1]}])
        elif r < 0.7:
            message.update(method=self.rng.choice(["ping", "tools/list", "initialize",
                                                   "resources/list", "nope", ""]))
            if self.rng.random() < 0.5:
                message["params"] = self.rng.choice([{}, {"protocolVersion": "2024-11-05"},
                                                     {"cursor": "x"}, [], "p", 1.5])
        else:
            message.update(method="ping")
        return message

    def line(self) -> tuple[bytes, set[Any] | None, bool]:
        """(the line, the ids a reply must carry (None: no reply), is the reply a batch)."""
        r = self.rng.random()
        if r < 0.62:
            message = self.request()
            return json.dumps(message).encode(), {message["id"]}, False
        if r < 0.7:  # a notification: never answered, whatever it says
            message = self.request()
            del message["id"]
            return json.dumps(message).encode(), None, False
        if r < 0.78:  # a batch of requests and notifications
            items: list[Any] = []
            ids: set[Any] = set()
            for _ in range(self.rng.randint(1, 5)):
                item = self.request()
                if self.rng.random() < 0.3:
                    del item["id"]
                else:
                    ids.add(item["id"])
                items.append(item)
            return json.dumps(items).encode(), (ids or None), True
        if r < 0.82:  # a stray response: dropped
            return json.dumps({"jsonrpc": "2.0", "id": self.new_id(), "result": {}}).encode(), \
                None, False
        # Not a valid request at all: each gets one error reply with id null.
        junk = self.rng.choice([
            b"{", b"[]", b"null", b"42", b'"text"', b'{"jsonrpc": "2.0", "id": 5}',
            b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}',
            b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":1e400}}',
            b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":-Infinity}}',
            b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
            b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
            b"\xff\xfe\x00garbage", b"[" * 5000 + b"]" * 5000,
            bytes(self.rng.randrange(32, 127) for _ in range(200)),
        ])
        if junk.startswith(b'{"jsonrpc": "2.0", "id": 5}'):
            return junk, {5}, False
        if self.rng.random() < 0.1:  # a batch of non-requests: one error each, id null
            return b"[1, 2]", {None}, True
        if self.rng.random() < 0.05:  # no id and no method: not a notification, -32600
            line = self.rng.choice([b'{"jsonrpc": "2.0"}', b"{}", b"[{}]"])
            return line, {None}, line.startswith(b"[")
        return junk, {None}, False


def _check_error(error: dict[str, Any]) -> None:
    assert error["code"] != -32603, error
    if "data" in error:
        validate_envelope(error["data"])
        assert error["data"]["error_code"] != "internal_error", error
    if error["code"] == -32602:
        assert "data" in error, error


def _check(reply: Any, expected: set[Any], batch: bool) -> None:
    replies = reply if batch and isinstance(reply, list) else [reply]
    assert {r.get("id") for r in replies} == expected, (reply, expected)
    for item in replies:
        assert item.get("jsonrpc") == "2.0", item
        if "error" in item:
            _check_error(item["error"])
        else:
            result = item["result"]
            if isinstance(result, dict) and "content" in result:
                validate_envelope(json.loads(result["content"][0]["text"]))


def fuzz_repo(where: Path) -> Path:
    """The small real repository the fuzzed calls are about (three commits)."""
    repo = FixtureRepo(where / "repo")
    repo.commit({"pkg/mod.py": "def f():\n    return 1\n", "README.md": "hi\n"}, "one")
    repo.commit({"pkg/mod.py": "def f():\n    return 2\n\n\ndef g():\n    return f()\n"},
                "two")
    repo.commit({"pkg/other.py": "from pkg.mod import g\n\n\ndef h():\n    return g()\n"},
                "three")
    return repo.path


def fuzz_env() -> dict[str, str]:
    """The server's environment: filigree on a closed port, the built-in edges only."""
    return {**os.environ, "FILIGREE_API_URL": "http://127.0.0.1:9", "NO_COLOR": "1",
            "WARPLINE_FILIGREE_DEADLINE_S": "0.2", "WARPLINE_EDGE_SOURCES": "builtin"}


Exchange = tuple[int, bytes, "set[Any] | None", bool, "bytes | None"]


def exchange(server: McpProcess, generator: Generator, lines: int) -> Iterator[Exchange]:
    """Send ``lines`` generated lines one at a time: (number, line, the ids a reply must
    carry (None: none owed), batch?, the reply (None when owed and none came: the server
    hung or exited; the exchange then ends, the pairing of lines and replies lost))."""
    for number in range(lines):
        line, expected, batch = generator.line()
        server.send_raw(line + b"\n")
        if expected is None:
            yield number, line, None, batch, None
            continue
        try:
            raw = server.read_line()
        except TimeoutError:
            raw = None
        yield number, line, expected, batch, raw
        if raw is None:
            return


def test_one_server_survives_thousands_of_generated_lines(tmp_path: Path) -> None:
    env = fuzz_env()
    generator = Generator(random.Random(SEED), fuzz_repo(tmp_path))
    counts = {"replies": 0, "silent": 0}
    with McpProcess([sys.executable, "-m", "warpline.mcp"], cwd=tmp_path, env=env,
                    timeout=120) as server:
        for number, line, expected, batch, raw in exchange(server, generator, LINES):
            if expected is None:
                counts["silent"] += 1
                continue
            if raw is None:
                raise AssertionError(f"no reply to line {number} (a hang or an exit): "
                                     f"{line[:300]!r}")
            try:
                _check(_strict(raw), expected, batch)
            except AssertionError as exc:
                raise AssertionError(f"line {number}: {line[:300]!r}: {exc}") from None
            counts["replies"] += 1
        server.send({"jsonrpc": "2.0", "id": "final-ping", "method": "ping"})
        # The next line must be the ping's reply: nothing was owed to a notification.
        assert _strict(server.read_line() or b"null") == {"jsonrpc": "2.0", "id": "final-ping",
                                                          "result": {}}
    assert counts["replies"] > LINES // 2 and counts["silent"] > LINES // 20
