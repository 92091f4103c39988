"""The import graph keeps its layers: no back-edges, lazy imports included.

Every ``import`` of a ``warpline`` module anywhere in a file (module level or inside a
function) is an edge. Lower rooms never reach up: the service layer knows nothing of the
tool table or its adapters (the CLI, MCP, the pytest plugin), the map library and the table
of runners sit under the service, setup does not borrow from the CLI, the MCP tool adapter and
the stdio loop share ``mcp/jsonrpc.py`` instead of importing each other, and the CLI's
submodules write through ``cli/output.py``, never through the package they live in.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "warpline"


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        edges[_module(path)] = {name for name in found if name.startswith("warpline")}
    return edges


EDGES = _edges()


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _reaches(source_room: str, target_rooms: set[str],
             allowed: frozenset[str] = frozenset()) -> list[str]:
    return sorted(f"{module} -> {target}" for module, targets in EDGES.items()
                  if _room(module) == source_room and module not in allowed
                  for target in targets if _room(target) in target_rooms)


def test_the_walk_sees_lazy_imports() -> None:
    # registry imports each service module inside its handler function.
    assert "warpline.service.history.changed" in EDGES["warpline.registry"]


@pytest.mark.parametrize(("room", "forbidden"), [
    ("errors", {"models", "git", "store", "service", "registry", "cli", "mcp", "setup"}),
    ("git", {"store", "ingest", "service", "graph", "registry", "cli", "mcp", "setup", "models"}),
    ("store", {"ingest", "service", "registry", "cli", "mcp", "setup"}),
    ("ingest", {"service", "registry", "cli", "mcp", "setup", "models"}),
    ("graph", {"store", "ingest", "service", "registry", "cli", "mcp", "setup"}),
    ("federation", {"store", "service", "registry", "cli", "mcp", "setup"}),
    ("contracts_io", {"registry", "service", "cli", "mcp", "setup"}),
    ("service", {"registry", "tooldocs", "cli", "mcp", "setup", "pytest_plugin"}),
    ("setup", {"cli", "registry", "pytest_plugin"}),
    # The map library below the runners that record maps: no plugin, no service inside.
    ("testmap", {"runners", "service", "registry", "cli", "mcp", "setup", "pytest_plugin"}),
    # The table of runners sits under the service (which asks its rows) and the adapters.
    ("runners", {"service", "registry", "tooldocs", "cli", "mcp", "setup", "pytest_plugin"}),
    # The pytest plugin is an adapter, like the CLI and MCP: above the service, beside them.
    ("pytest_plugin", {"registry", "cli", "mcp", "setup"}),
    ("cli", {"pytest_plugin"}),
    ("mcp", {"pytest_plugin"}),
])
def test_a_lower_room_never_imports_a_higher_one(room: str, forbidden: set[str]) -> None:
    assert _reaches(room, forbidden) == []


def test_the_graph_reaches_only_runner_modules_that_stay_below_it() -> None:
    # The built-in extractor reads a runner's collection rules (pytest's python_files)
    # for its test facts; a runner module it imports must not reach a room the graph may
    # not (so the rows' recording and receipt modules stay out of its way).
    used = {target for module, targets in EDGES.items() if _room(module) == "graph"
            for target in targets if _room(target) == "runners"}
    modules = {m for m in used if m in EDGES}
    assert modules, "the graph reads no runner module: drop this test"
    leaks = sorted(f"{m} -> {t}" for m in modules for t in EDGES[m]
                   if _room(t) in {"store", "service", "testmap", "registry", "cli", "mcp",
                                   "setup"})
    assert leaks == []


def test_models_import_only_models_errors_and_the_version() -> None:
    # The generator of contracts/ (run as a script, never imported at run time) reads the
    # tool table to write tools.json; no other model module looks up.
    leaks = _reaches("models", {"git", "store", "service", "registry", "cli", "mcp", "setup"},
                     allowed=frozenset({"warpline.models.schemas"}))
    assert leaks == []


def test_the_mcp_modules_share_jsonrpc_instead_of_importing_each_other() -> None:
    assert not {e for e in EDGES["warpline.mcp.tools"] if e.startswith("warpline.mcp.server")}
    assert not {e for e in EDGES["warpline.mcp.jsonrpc"] if e.startswith("warpline.mcp")}


def test_cli_submodules_write_through_output_not_the_package() -> None:
    submodules = {path.stem for path in (PACKAGE / "cli").glob("*.py")}
    offenders = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        if path.name == "__main__.py" or path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "warpline.cli":
                offenders += [f"{path.name}: {a.name}" for a in node.names
                              if a.name not in submodules]
    assert offenders == []


def _connection_uses(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom) and "sqlite3" in (
                    [a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module]):
                found.append(f"{where}:{node.lineno} imports sqlite3")
            elif isinstance(node, ast.Attribute) and node.attr in ("conn", "execute"):
                found.append(f"{where}:{node.lineno} .{node.attr}")
    return found


def test_the_service_asks_the_store_never_its_connection() -> None:
    # SQL lives in the store's named functions (they take the ``Store``); the service layer
    # never holds the connection, so a query's plan and its errors stay in one room.
    assert _connection_uses(PACKAGE / "service") == []
