"""Start-up stays cheap, checked without a clock: what a fresh process imports.

loomweave spawns ``warpline-mcp`` once per call and a git hook runs ``warpline
ingest-commit`` once per commit, so every module a call imports is paid on every call.
These tests run the real entry points (``warpline.mcp.server.main``, ``warpline.cli.main``)
in child processes that print ``sys.modules`` to stderr at exit, and assert which heavy
modules a call does NOT import: the graph (networkx), the JSON Schema walker (jsonschema,
only for a rejected input), the HTTP client (httpx), pydantic for ``initialize``,
``tools/list`` and a ``churn`` of the common input shape (MCP and CLI), the models of other
tools, and the walker (attribution) on a caught-up store. Each test also asserts what the
call must import, so a broken probe cannot pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GUARD_DIR
from tests.gitfixture import FixtureRepo
from warpline.contracts_io import validate_envelope

_MARK = "WARPLINE-TEST-MODULES "
# The entry point, run as its console script runs it; at exit, every module it imported.
_CHILD = ("import atexit, json, sys\n"
          "atexit.register(lambda: sys.stderr.write("
          f"{_MARK!r} + json.dumps(sorted(sys.modules)) + '\\n'))\n"
          "from {module} import main\n"
          "sys.argv[1:] = json.loads(sys.argv[1])\n"
          "sys.exit(main())\n")
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "startup-test", "version": "1"}}}
ALWAYS_HEAVY = ("networkx", "jsonschema", "httpx", "warpline.graph", "warpline.federation")
OTHER_TOOLS_MODELS = ("warpline.models.graph", "warpline.models.worklist",
                      "warpline.models.admin")
LIBGIT2 = ("pygit2", "warpline.git.repo", "warpline.git.shallow")
WALKER = ("warpline.ingest.driver", "warpline.git.attribution", "warpline.ingest.pipeline",
          "multiprocessing")


def _imported(stderr: str) -> set[str]:
    found = [line[len(_MARK):] for line in stderr.splitlines() if line.startswith(_MARK)]
    assert len(found) == 1, stderr[-2000:]
    return set(json.loads(found[0]))


def _child(module: str, argv: list[str]) -> list[str]:
    return [sys.executable, "-c", _CHILD.replace("{module}", module), json.dumps(argv)]


def _env() -> dict[str, str]:
    """This process's environment without the suite's envelope guard (it imports jsonschema
    into every child); the tests check the envelopes here instead."""
    env = dict(os.environ)
    kept = [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
            if p and Path(p).resolve() != GUARD_DIR.resolve()]
    env["PYTHONPATH"] = os.pathsep.join(kept)
    return env


def _under(modules: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == r or m.startswith(r + ".") for r in roots))


def _serve(messages: list[dict[str, Any]], cwd: Path) -> tuple[list[dict[str, Any]], set[str]]:
    """Run ``python -m warpline.mcp`` (a fresh process) over ``messages``; its replies and
    every module it imported."""
    done = subprocess.run(
        _child("warpline.mcp.server", []),
        input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True,
        text=True, cwd=cwd, timeout=120, check=True, env=_env())
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return replies, _imported(done.stderr)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    fixture = FixtureRepo(tmp_path_factory.mktemp("startup") / "repo")
    for n in range(3):
        fixture.commit({"pkg/mod.py": f"def f():\n    return {n}\n\n\ndef g():\n    return 1\n"},
                       f"edit {n}")
    return fixture


def _churn(repo: FixtureRepo, call_id: int = 2) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
            "params": {"name": "churn", "arguments": {
                "repo": str(repo.path), "entity_refs": ["python:function:pkg.mod.f",
                                                        "python:function:never.seen"]}}}


def test_initialize_and_tools_list_import_no_pydantic_and_no_tool(repo: FixtureRepo) -> None:
    replies, modules = _serve([INIT, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}],
                              repo.path)
    assert [r["id"] for r in replies] == [1, 2]
    assert len(replies[1]["result"]["tools"]) == 16  # listed from the contract files
    assert "warpline.mcp.server" in modules and "warpline.registry" in modules
    assert _under(modules, ("pydantic", "pydantic_core", "pygit2", "sqlite3",
                            "warpline.models", "warpline.service", "warpline.store",
                            *ALWAYS_HEAVY)) == []


PYDANTIC = ("pydantic", "pydantic_core", "annotated_types", "warpline.models.common",
            "warpline.models.envelope", "warpline.models.history", "warpline.models.inputs")


def test_tools_list_twice_answers_the_contract_files_both_times(repo: FixtureRepo) -> None:
    # The listing shares the parsed contract files (no copies): nothing may change them.
    from warpline.contracts_io import load_contract

    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    replies, _ = _serve([INIT, listing, {**listing, "id": 3}], repo.path)
    first, second = replies[1]["result"]["tools"], replies[2]["result"]["tools"]
    assert json.dumps(first) == json.dumps(second)
    from warpline.mcp.wire_schema import call_schema

    for tool in first:
        if "_meta" not in tool:  # a shim: an alias, no schema of its own
            continue
        assert tool["inputSchema"] == call_schema(load_contract(f"{tool['name']}.input.json"))


def test_mcp_churn_on_a_caught_up_store_imports_no_pydantic_and_no_walker(
        repo: FixtureRepo) -> None:
    first, _ = _serve([INIT, _churn(repo)], repo.path)  # creates and fills the store
    assert json.loads(first[1]["result"]["content"][0]["text"])["ok"] is True
    replies, modules = _serve([INIT, _churn(repo)], repo.path)
    envelope = json.loads(replies[1]["result"]["content"][0]["text"])
    validate_envelope(envelope)
    counts = {item["entity"]["locator"]: item["churn_count"] for item in envelope["data"]["items"]}
    assert counts == {"python:function:pkg.mod.f": 3, "python:function:never.seen": 0}
    assert {"warpline.service.history.churn", "warpline.service.history.churn_input",
            "warpline.service.history.churn_wire", "warpline.store.caughtup",
            "warpline.git.gitfiles"} <= modules
    # The common input shape is checked by hand and the answer built without pydantic;
    # HEAD came from git's files: libgit2 is not loaded for a caught-up read.
    assert _under(modules, (*PYDANTIC, *ALWAYS_HEAVY, *OTHER_TOOLS_MODELS, *WALKER,
                            *LIBGIT2)) == []


def test_cli_churn_on_a_caught_up_store_imports_no_pydantic(repo: FixtureRepo) -> None:
    _serve([INIT, _churn(repo)], repo.path)  # the store is caught up
    for argv in (["churn", "pkg.mod.f", "--repo", str(repo.path), "--json"],
                 ["churn", "pkg.mod.f", "--repo", str(repo.path)]):
        done = subprocess.run(_child("warpline.cli", argv), capture_output=True, text=True,
                              cwd=repo.path, timeout=120, check=True, env=_env())
        modules = _imported(done.stderr)
        if "--json" in argv:
            envelope = json.loads(done.stdout)
            validate_envelope(envelope)
            assert [i["churn_count"] for i in envelope["data"]["items"]] == [3]
        else:
            assert "pkg.mod.f" in done.stdout
        assert {"warpline.service.history.churn_wire", "warpline.cli"} <= modules
        assert _under(modules, (*PYDANTIC, *ALWAYS_HEAVY, *WALKER, *LIBGIT2)) == [], argv


def test_an_unusual_churn_input_goes_to_the_input_model(repo: FixtureRepo) -> None:
    # A key id given as a ref object with kind auto is valid, but not the common shape:
    # the input model parses it and the envelope model checks the answer.
    _serve([INIT, _churn(repo)], repo.path)
    call = _churn(repo)
    call["params"]["arguments"]["entity_refs"] = [{"kind": "auto", "value": 1}]
    replies, modules = _serve([INIT, call], repo.path)
    validate_envelope(json.loads(replies[1]["result"]["content"][0]["text"]))
    assert {"pydantic", "warpline.models.inputs", "warpline.models.history"} <= modules
    assert _under(modules, (*ALWAYS_HEAVY, *OTHER_TOOLS_MODELS, *WALKER)) == []


def test_a_store_behind_head_still_catches_up(repo: FixtureRepo) -> None:
    # The cheap path is taken only when it is exact: a new commit loads the walker.
    _serve([INIT, _churn(repo)], repo.path)
    repo.commit({"pkg/mod.py": "def f():\n    return 9\n\n\ndef g():\n    return 1\n"}, "again")
    replies, modules = _serve([INIT, _churn(repo)], repo.path)
    items = json.loads(replies[1]["result"]["content"][0]["text"])["data"]["items"]
    assert {i["entity"]["locator"]: i["churn_count"] for i in items}[
        "python:function:pkg.mod.f"] == 4
    assert {"warpline.ingest.driver", "pygit2"} <= modules


def test_a_rejected_input_loads_the_schema_walker_to_name_the_field(repo: FixtureRepo) -> None:
    bad = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
           "params": {"name": "churn", "arguments": {"repo": str(repo.path),
                                                     "entity_refs": "not-a-list"}}}
    replies, modules = _serve([INIT, bad], repo.path)
    validate_envelope(replies[1]["error"]["data"])
    assert replies[1]["error"]["data"]["error_code"] == "invalid_entity_ref"
    assert replies[1]["error"]["data"]["rejected_field"] == "entity_refs"
    assert "jsonschema" in modules


def test_ingest_commit_imports_no_pydantic_graph_or_http(repo: FixtureRepo) -> None:
    sha = repo.commit({"pkg/other.py": "def h():\n    return 2\n"}, "add h")
    done = subprocess.run(
        _child("warpline.cli", ["ingest-commit", sha, "--repo", str(repo.path), "--json"]),
        capture_output=True, text=True, cwd=repo.path, timeout=120, check=True, env=_env())
    assert json.loads(done.stdout)["commits_ingested"] == 1
    modules = _imported(done.stderr)
    assert {"pygit2", "warpline.git.attribution", "warpline.ingest.driver"} <= modules
    assert _under(modules, ("pydantic", "warpline.models", "warpline.registry",
                            "warpline.ingest.pipeline", "multiprocessing",
                            "warpline.cli.smoke", "warpline.mcp.client",
                            "warpline.cli.setup_cmds", *ALWAYS_HEAVY)) == []


def test_backfill_of_a_caught_up_store_imports_no_walker(repo: FixtureRepo) -> None:
    argv = ["backfill", "--repo", str(repo.path), "--json"]
    subprocess.run(_child("warpline.cli", argv), capture_output=True, text=True,
                   cwd=repo.path, timeout=120, check=True, env=_env())  # catches up
    done = subprocess.run(_child("warpline.cli", argv), capture_output=True, text=True,
                          cwd=repo.path, timeout=120, check=True, env=_env())
    summary = json.loads(done.stdout)
    assert (summary["commits_ingested"], summary["complete"]) == (0, True)
    modules = _imported(done.stderr)
    assert {"warpline.store.caughtup", "warpline.git.gitfiles"} <= modules
    assert _under(modules, ("pydantic", *WALKER, *ALWAYS_HEAVY, *LIBGIT2)) == []


def test_changed_over_a_stored_range_imports_no_walker_or_graph(repo: FixtureRepo) -> None:
    _serve([INIT, _churn(repo)], repo.path)  # the store is caught up
    changed = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "changed", "arguments": {"repo": str(repo.path),
                                                           "rev_range": "HEAD~2..HEAD"}}}
    replies, modules = _serve([INIT, changed], repo.path)
    envelope = json.loads(replies[1]["result"]["content"][0]["text"])
    validate_envelope(envelope)
    assert envelope["data"]["items"], envelope
    assert "warpline.service.history.changed" in modules
    assert _under(modules, (*ALWAYS_HEAVY, *OTHER_TOOLS_MODELS, *WALKER)) == []


def test_the_plain_command_map_names_the_module_that_registers_each_command() -> None:
    import argparse
    import importlib

    from warpline.cli import commands

    registered: dict[str, str] = {}
    for name in commands._EXTENSIONS:
        sub = argparse.ArgumentParser(add_help=False).add_subparsers()
        importlib.import_module(name).add_parsers(sub, commands.common)
        registered.update(dict.fromkeys(sub.choices, name))
    assert commands.PLAIN_COMMANDS == registered


def test_every_dataclass_of_warpline_has_a_docstring_of_its_own() -> None:
    """Without one, ``@dataclass`` writes ``__doc__`` from ``inspect.signature`` when the
    module is imported: about 0.4 ms a class on Python 3.11, paid by every process that
    imports it (44 such classes, 20 of them on the path of ``ingest-commit``). Checked on
    the classes themselves, so one added without a docstring fails here."""
    import dataclasses
    import importlib
    import pkgutil

    import warpline

    checked, bare = 0, []
    for info in pkgutil.walk_packages(warpline.__path__, "warpline."):
        if info.name.rsplit(".", 1)[-1].startswith("__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (isinstance(obj, type) and dataclasses.is_dataclass(obj)
                    and obj.__module__ == info.name):
                checked += 1
                if not (obj.__doc__ or "").strip() or obj.__doc__ == _signature_doc(obj):
                    bare.append(f"{info.name}.{obj.__qualname__}")
    assert checked >= 70
    assert bare == []


def _signature_doc(cls: type) -> str:
    import inspect

    return cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
