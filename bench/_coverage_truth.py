"""The truth a test selection is measured against: which tests executed which function.

* ``functions``: every function and method of a package (Python's ``ast``, independent of
  warpline's own walker), with its locator in warpline's dialect, its *own* lines (the body,
  less nested definitions, which are entities of their own) and where a harmless statement
  can be inserted into its body.
* ``per_line_tests``: a coverage.py data file recorded with per-test dynamic contexts
  (``pytest --cov --cov-context=test``; contexts ``<node id>|setup|run|teardown``), read
  with coverage's data API (``CoverageData.contexts_by_lineno``): file -> line -> the tests
  that executed it. Lines run outside every test (imports, collection) carry the empty
  context and are no test's.
* ``truth``: the tests that executed at least one of a function's own lines.
* ``insert_edit``: the edit itself, one assignment as the body's first statement (after the
  docstring), indented like the body.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from coverage import CoverageData

EDIT_LINE = "_warpline_bench_edit = None"
_PHASES = ("|setup", "|run", "|teardown")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True, slots=True)
class Function:
    locator: str
    path: str  # repository-relative, '/' separators
    lines: frozenset[int]
    insert_before: int  # 1-based line the edit goes in front of
    indent: str


def dotted(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    if parts[0] == "src":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def functions(repo: Path, package: str = "src/requests") -> list[Function]:
    """One ``Function`` per locator. ``@overload`` stubs are no entity (as in warpline's
    walker); definitions sharing a locator (a property's getter and setter) are one entity:
    their lines together, the edit going into the first."""
    found: list[Function] = []
    for file in sorted((repo / package).rglob("*.py")):
        rel = file.relative_to(repo).as_posix()
        source = file.read_text(encoding="utf-8")
        lines = source.splitlines()
        _walk(ast.parse(source), [], rel, dotted(rel), lines, found)
    merged: dict[str, Function] = {}
    for function in found:
        first = merged.get(function.locator)
        merged[function.locator] = function if first is None else Function(
            first.locator, first.path, first.lines | function.lines, first.insert_before,
            first.indent)
    return list(merged.values())


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any((isinstance(d, ast.Name) and d.id == "overload")
               or (isinstance(d, ast.Attribute) and d.attr == "overload")
               for d in node.decorator_list)


def _walk(node: ast.AST, scope: list[str], path: str, module: str, lines: list[str],
          out: list[Function]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            _walk(child, [*scope, child.name], path, module, lines, out)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            if _is_overload(child):
                continue
            qualname = ".".join([*scope, child.name])
            function = _function(child, f"python:function:{module}.{qualname}", path, lines)
            if function is not None:
                out.append(function)
            _walk(child, [*scope, child.name, "<locals>"], path, module, lines, out)
        elif not isinstance(child, ast.expr):
            _walk(child, scope, path, module, lines, out)  # if/try blocks at module level


def _start(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    return min([d.lineno for d in node.decorator_list] + [node.lineno])


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, locator: str, path: str,
              lines: list[str]) -> Function | None:
    body = node.body
    end = node.end_lineno or body[-1].lineno
    own = set(range(body[0].lineno, end + 1))
    for inner in ast.walk(node):
        if inner is not node and isinstance(inner, _DEFS):
            own -= set(range(_start(inner), (inner.end_lineno or inner.lineno) + 1))
    docstring = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                 and isinstance(body[0].value.value, str))
    if docstring and len(body) > 1:
        target, before = body[1], body[1].lineno
        if body[0].end_lineno == before:
            return None  # `"""doc"""; x = 1` on one line
    elif docstring:
        target, before = body[0], (body[0].end_lineno or body[0].lineno) + 1
    else:
        target, before = body[0], body[0].lineno
    if lines[body[0].lineno - 1][: body[0].col_offset].strip():
        return None  # `def f(...): ...`, the body on the signature's line: nothing to edit
    text = lines[target.lineno - 1]
    indent = text[: len(text) - len(text.lstrip())]
    if docstring and len(body) == 1:
        first = lines[body[0].lineno - 1]
        indent = first[: len(first) - len(first.lstrip())]
    return Function(locator, path, frozenset(own), before, indent)


def test_id(context: str) -> str | None:
    for phase in _PHASES:
        if context.endswith(phase):
            return context[: -len(phase)]
    return context or None


def per_line_tests(data_file: Path, repo: Path) -> dict[str, dict[int, set[str]]]:
    data = CoverageData(basename=str(data_file))
    data.read()
    root = repo.resolve()
    out: dict[str, dict[int, set[str]]] = {}
    for measured in data.measured_files():
        try:
            rel = Path(measured).resolve().relative_to(root).as_posix()
        except ValueError:
            continue  # outside the repository (site-packages)
        by_line: dict[int, set[str]] = {}
        for line, contexts in data.contexts_by_lineno(measured).items():
            tests = {t for t in map(test_id, contexts) if t}
            if tests:
                by_line[line] = tests
        out[rel] = by_line
    return out


def truth(function: Function, per_line: dict[str, dict[int, set[str]]]) -> set[str]:
    by_line = per_line.get(function.path, {})
    tests: set[str] = set()
    for line in function.lines:
        tests |= by_line.get(line, set())
    return tests


def insert_edit(repo: Path, function: Function) -> None:
    file = repo / function.path
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(function.insert_before - 1, f"{function.indent}{EDIT_LINE}\n")
    file.write_text("".join(lines), encoding="utf-8")
