"""Go mutants and the Go suite's failures, for ``bench_go_mutants.py``.

``mutate`` breaks one function or method (found by its ``go:`` qualname in a file's
source, with tree-sitter-go): a single ``bool`` result is negated at every ``return``, a
single ``string`` result gets ``+ "~"``, a single ``int`` result ``+ 1`` (a wrong return
value); anything else starts with ``panic("warpline mutant")``. ``failing`` runs every
top-level test in a process of its own and names the failing ones by the suite's test ids
(``<file>::<Name>``).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

import tree_sitter
import tree_sitter_go

from warpline.lang.golang import definition_name

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_go.language()))
PANIC = 'panic("warpline mutant")'
_WRONG = {"bool": ("!(", ")"), "string": ("(", ') + "~"'), "int": ("(", ") + 1")}


def _find(root: Any, qualname: str) -> Any:
    for node in root.named_children:
        kind = {"function_declaration": "function", "method_declaration": "method"}.get(
            node.type)
        if kind is not None and definition_name(node, kind) == qualname:
            return node
    return None


def _returns(body: Any) -> list[Any]:
    out = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "func_literal":
            continue
        if node.type == "return_statement":
            out.append(node)
            continue
        stack.extend(node.named_children)
    return out


def _lone(node: Any) -> Any:
    """A return's one value (``return x`` holds an expression list of one)."""
    if node.type != "expression_list":
        return node
    return node.named_children[0] if len(node.named_children) == 1 else None


def mutate(source: bytes, qualname: str) -> tuple[bytes, str] | None:
    """(the mutated source, ``wrong-return`` or ``panic``); None when the function is not
    in the file or has no body."""
    node = _find(_PARSER.parse(source).root_node, qualname)
    body = node.child_by_field_name("body") if node is not None else None
    if node is None or body is None:
        return None
    result = node.child_by_field_name("result")
    wrap = _WRONG.get(result.text.decode()) if result is not None else None
    returns = _returns(body) if wrap is not None else []
    values = [_lone(r.named_children[0]) for r in returns if len(r.named_children) == 1]
    values = [v for v in values if v is not None]
    if wrap is not None and values and len(values) == len(returns):
        out = source
        for value in sorted(values, key=lambda v: v.start_byte, reverse=True):
            out = (out[:value.start_byte] + wrap[0].encode() + out[value.start_byte:
                   value.end_byte] + wrap[1].encode() + out[value.end_byte:])
        return out, "wrong-return"
    at = body.start_byte + 1
    return source[:at] + f"\n\t{PANIC}\n".encode() + source[at:], "panic"


def failing(root: Path, env: dict[str, str] | None = None,
            jobs: int = 2) -> tuple[set[str], bool]:
    """The ids of the top-level tests that fail, each run in a process of its own (a panic
    ends a Go test binary: in one ``go test ./...`` run, the tests after the first panic
    would never run, so their failures would go unseen); and whether some package did not
    build (every test of it fails)."""
    from concurrent.futures import ThreadPoolExecutor

    from warpline.runners.gotest_command import discover, module_dir, quote_meta

    tests = [t for t in discover(root) if t.kind != "benchmark"]
    packages: dict[str, list[Any]] = {}
    for test in tests:
        packages.setdefault(test.path.rpartition("/")[0], []).append(test)
    out: set[str] = set()
    broken = False
    with tempfile.TemporaryDirectory(prefix="warpline-gomutant-") as scratch:
        for number, (directory, members) in enumerate(sorted(packages.items())):
            module = module_dir(root, directory) or ""
            package = directory[len(module):].lstrip("/") if module else directory
            binary = Path(scratch) / f"p{number}.test"
            built = subprocess.run(["go", "test", "-c", "-o", str(binary),
                                    f"./{package}" if package else "."],
                                   cwd=root / module if module else root, env=env,
                                   capture_output=True, text=True, timeout=900, check=False)
            if built.returncode != 0:
                broken = True
                out.update(t.test_id for t in members)
                continue

            def one(test: Any, binary: Path = binary, directory: str = directory) -> Any:
                done = subprocess.run(
                    [str(binary), f"-test.run=^{quote_meta(test.name)}$", "-test.count=1",
                     "-test.paniconexit0"], cwd=root / directory if directory else root,
                    env=env, capture_output=True, text=True, timeout=600, check=False)
                return test.test_id if done.returncode != 0 else None

            with ThreadPoolExecutor(max_workers=jobs) as pool:
                out.update(found for found in pool.map(one, members) if found)
    return out, broken
