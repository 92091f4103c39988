"""The JS floor from the work tree: the test files importing a changed file or a file that
imports it (the tests of what imports it), directly or through modules that re-export it
(``export * from``, ``export {a} from``, ``import a …; export {a}``, ``module.exports =
require(...)``, ``exports.x = require(...)``): one level of use deep, where Jest's
``--findRelatedTests`` follows every import.

Imports are read with tree-sitter (``import … from``, ``export … from``, ``require(…)``,
``import(…)`` with a literal), resolved as Node and bundlers do for relative specifiers
(the file, its extensions ``.ts .tsx .js .jsx .mjs .cjs .mts .cts``, a directory's
``index``; a ``.js`` specifier naming a ``.ts`` file); bare package names are not the
repository's. Bounded: files over 2 MiB and ``node_modules`` are not read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from warpline.runners.js_literal import parse, string_value

__all__ = ["ImportGraph", "import_graph", "importing_tests"]

_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_MAX_BYTES = 2 << 20
_MAX_FILES = 20_000
_SKIP = frozenset({"node_modules", ".git", ".weft", "dist", "build", "coverage"})


@dataclass(slots=True)
class ImportGraph:
    """file -> the files it imports; file -> the files it re-exports (repo-relative)."""

    imports: dict[str, set[str]] = field(default_factory=dict)
    reexports: dict[str, set[str]] = field(default_factory=dict)

    def importers(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for source, targets in self.imports.items():
            for target in targets:
                out.setdefault(target, set()).add(source)
        return out


def _specifiers(root_node: Any) -> tuple[list[str], list[str]]:
    """(every literal module specifier, the re-exported ones)."""
    found: list[str] = []
    again: list[str] = []
    bound: dict[bytes, str] = {}  # a name an import binds -> its specifier
    exported: set[bytes] = set()  # names ``export {a, b}`` / ``export default a`` export
    stack = [root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("import_statement", "export_statement"):
            source = node.child_by_field_name("source")
            value = string_value(source)
            if value is not None:
                found.append(value)
                if kind == "export_statement":
                    again.append(value)
                else:
                    bound.update((name, value) for name in _bindings(node))
            elif kind == "export_statement":
                exported.update(_exported_names(node))
        elif kind == "call_expression":
            function = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            if function is not None and args is not None and \
                    function.type in ("identifier", "import") and \
                    function.text in (b"require", b"import") and args.named_children:
                value = string_value(args.named_children[0])
                if value is not None:
                    found.append(value)
                    if _reexported(node):
                        again.append(value)
                    parent = node.parent
                    name = parent.child_by_field_name("name") \
                        if parent is not None and parent.type == "variable_declarator" else None
                    if name is not None and name.type == "identifier":
                        bound[name.text] = value  # var x = require('./x')
        elif kind == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and right.type == "identifier" and (
                    left.text == b"module.exports"
                    or left.text.startswith((b"exports.", b"module.exports."))):
                exported.add(right.text)  # exports.x = x
        stack.extend(node.named_children)
    again.extend(bound[name] for name in exported if name in bound)
    return found, again


def _bindings(statement: Any) -> list[bytes]:
    """The local names an ``import`` statement binds."""
    out: list[bytes] = []
    stack = list(statement.named_children)
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            out.append(node.text)
        elif node.type == "import_specifier":
            alias = node.child_by_field_name("alias") or node.child_by_field_name("name")
            if alias is not None:
                out.append(alias.text)
        elif node.type in ("import_clause", "named_imports", "namespace_import"):
            stack.extend(node.named_children)
    return out


def _exported_names(statement: Any) -> list[bytes]:
    """The local names ``export {a, b as c}`` or ``export default a`` export."""
    out: list[bytes] = []
    for child in statement.named_children:
        if child.type == "export_clause":
            for spec in child.named_children:
                name = spec.child_by_field_name("name")
                if name is not None:
                    out.append(name.text)
        elif child.type == "identifier":
            out.append(child.text)
    return out


def _reexported(call: Any) -> bool:
    """``module.exports = require(x)`` / ``exports.y = require(x)``."""
    parent = call.parent
    if parent is None or parent.type != "assignment_expression":
        return False
    left = parent.child_by_field_name("left")
    text = left.text if left is not None else b""
    return text == b"module.exports" or text.startswith((b"exports.", b"module.exports."))


def _resolve(directory: str, spec: str, files: set[str]) -> str | None:
    if not spec.startswith("."):
        return None
    parts: list[str] = [p for p in directory.split("/") if p]
    for piece in spec.split("/"):
        if piece in ("", "."):
            continue
        if piece == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(piece)
    base = "/".join(parts)
    stem, dot, ext = base.rpartition(".")
    prefix = f"{base}/" if base else ""
    candidates = [base, *(base + e for e in _EXTENSIONS if base),
                  *(f"{prefix}index{e}" for e in _EXTENSIONS)]
    if dot and "." + ext in (".js", ".jsx", ".mjs", ".cjs"):  # a .js specifier of a .ts file
        candidates += [stem + e for e in (".ts", ".tsx", ".mts", ".cts")]
    return next((c for c in candidates if c in files), None)


def _walk(root: Path) -> list[str]:
    out: list[str] = []
    for current, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
        rel = Path(current).relative_to(root).as_posix()
        for name in names:
            if name.endswith(_EXTENSIONS) and not name.endswith(".d.ts"):
                out.append(name if rel == "." else f"{rel}/{name}")
                if len(out) >= _MAX_FILES:
                    return out
    return out


def import_graph(root: Path) -> ImportGraph:
    """The work tree's JS/TS import graph (cached while no file's stamp changes)."""
    files = _walk(root)
    stamps = []
    for path in files:
        try:
            stat = (root / path).stat()
            stamps.append((path, stat.st_mtime_ns, stat.st_size))
        except OSError:
            continue
    return _build(str(root), tuple(stamps))


@lru_cache(maxsize=4)
def _build(root_text: str, stamps: tuple[tuple[str, int, int], ...]) -> ImportGraph:
    root = Path(root_text)
    files = {path for path, _, _ in stamps}
    graph = ImportGraph()
    for path, _, size in stamps:
        disk = root / path
        if size > _MAX_BYTES or disk.is_symlink():
            continue
        try:
            source = disk.read_bytes()
        except OSError:
            continue
        found, again = _specifiers(parse(source, typescript=path.endswith(
            (".ts", ".tsx", ".mts", ".cts"))))
        directory = path.rpartition("/")[0]
        graph.imports[path] = {t for s in found if (t := _resolve(directory, s, files))}
        graph.reexports[path] = {t for s in again if (t := _resolve(directory, s, files))}
    return graph


def importing_tests(root: Path, paths: list[str], is_test: Any) -> list[str]:
    """The test files (``is_test(path)``) importing one of ``paths``, or a file that
    imports one of them (the tests of what imports it), directly or through files
    re-exporting it; a changed test file is its own."""
    graph = import_graph(root)
    importers = graph.importers()
    users = {user for path in paths for user in importers.get(path, ()) if not is_test(user)}
    seeds = sorted(set(paths) | users)
    reached: set[str] = set(seeds)
    frontier = list(seeds)
    out: set[str] = {p for p in paths if is_test(p)}
    while frontier:
        step = []
        for target in frontier:
            for user in importers.get(target, ()):
                if is_test(user):
                    out.add(user)
                elif target in graph.reexports.get(user, ()) and user not in reached:
                    reached.add(user)
                    step.append(user)
        frontier = step
    return sorted(out)
