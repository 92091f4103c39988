"""A fixture repository whose call graph is written out by hand, shared by the graph-tool
tests of both edge sources (built-in and the real loomweave).

Flat layout (loomweave resolves ``tests/`` -> package calls without extra config):

    shapes/base.py      class Shape (area, describe -> self.area); class Square(Shape)
    shapes/cycle.py     ping <-> pong (a cycle)
    shapes/registry.py  make -> ping, make -> Square (a constructor call); module-level
                        HANDLERS = [make] (a module-level reference)
    tests/test_shapes.py  test_make -> make; TestCycle.test_ping -> ping

Both sources must find exactly ``EXPECTED_EDGES`` (calls: caller -> callee; references:
referrer -> referenced).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.contract_check import assert_valid_envelope
from tests.gitfixture import FileValue, FixtureRepo
from warpline.errors import WarplineError
from warpline.registry import call_tool

F = "python:function:"
C = "python:class:"
M = "python:module:"

BASE = """\
class Shape:
    sides = 0

    def area(self):
        return 0

    def describe(self):
        return str(self.area())


class Square(Shape):
    sides = 4

    def area(self):
        return 16
"""

CYCLE = """\
def ping(n):
    return pong(n - 1) if n else 0


def pong(n):
    return ping(n)
"""

REGISTRY = """\
from shapes.base import Square
from shapes.cycle import ping


def make(side):
    ping(side)
    return Square()


HANDLERS = [make]
"""

TESTS = """\
from shapes.cycle import ping
from shapes.registry import make


def test_make():
    assert make(2).sides == 4


class TestCycle:
    def test_ping(self):
        assert ping(3) == 0
"""

FILES: dict[str, FileValue] = {
    "shapes/__init__.py": "",
    "shapes/base.py": BASE,
    "shapes/cycle.py": CYCLE,
    "shapes/registry.py": REGISTRY,
    "tests/__init__.py": "",
    "tests/test_shapes.py": TESTS,
    "README.md": "shapes\n",
}

SHAPE, SQUARE = C + "shapes.base.Shape", C + "shapes.base.Square"
AREA, DESCRIBE = F + "shapes.base.Shape.area", F + "shapes.base.Shape.describe"
SQUARE_AREA = F + "shapes.base.Square.area"
PING, PONG = F + "shapes.cycle.ping", F + "shapes.cycle.pong"
MAKE, REGISTRY_MODULE = F + "shapes.registry.make", M + "shapes.registry"
TEST_MAKE = F + "tests.test_shapes.test_make"
TEST_PING = F + "tests.test_shapes.TestCycle.test_ping"

EXPECTED_EDGES = {
    (DESCRIBE, AREA, "calls"),
    (SQUARE, SHAPE, "references"),  # class hierarchy
    (PING, PONG, "calls"),  # the cycle
    (PONG, PING, "calls"),
    (MAKE, PING, "calls"),
    (MAKE, SQUARE, "calls"),  # a constructor call reaches the class
    (REGISTRY_MODULE, MAKE, "references"),  # module-level reference
    (TEST_MAKE, MAKE, "calls"),
    (TEST_PING, PING, "calls"),
}

CMD_TEST_MAKE = "pytest tests/test_shapes.py::test_make"
CMD_TEST_PING = "pytest tests/test_shapes.py::TestCycle::test_ping"


def make_repo(path: Path) -> FixtureRepo:
    repo = FixtureRepo(path)
    repo.commit(FILES, "shapes")
    return repo


def edit(repo: FixtureRepo, path: str, old: str, new: str, message: str = "edit") -> str:
    """Commit a one-place edit of a fixture file."""
    blob = repo.repo.revparse_single(f"HEAD:{path}").peel(pygit2.Blob).data.decode()
    assert old in blob, (path, old)
    return repo.commit({path: blob.replace(old, new, 1)}, message)


# Edits that change exactly one entity each.
CHANGE_PONG = ("shapes/cycle.py", "return ping(n)", "return ping(n + 0)")
CHANGE_SHAPE_CLASS = ("shapes/base.py", "    sides = 0", "    sides = 1")
CHANGE_AREA = ("shapes/base.py", "        return 0", "        return 0.0")


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool through the registry (the adapters' one entry point); validate it."""
    envelope = call_tool(tool, arguments)
    assert_valid_envelope(envelope)
    return envelope


def depths(envelope: dict[str, Any]) -> dict[str, int]:
    return {a["entity"]["locator"]: a["depth"] for a in envelope["data"]["affected"]}


def error(tool: str, **arguments: Any) -> dict[str, Any]:
    """The error envelope a call raises (validated); fails the test if it succeeds."""
    with pytest.raises(WarplineError) as info:
        call_tool(tool, arguments)
    payload = info.value.to_payload()
    assert_valid_envelope(payload)
    return payload
