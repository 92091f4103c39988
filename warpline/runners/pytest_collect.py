"""Which ids of a selection pytest would collect in the work tree: the rest are left out of
every command (pytest exits 4 on ``ERROR: not found``, 2 when a helper module fails to
import as a test file, 5 when nothing is left).

Kept, in order:

* a directory that exists (``.`` is the root): a changed ``conftest.py`` selects it;
* a file that exists and that pytest collects as a test file by the project's own rules
  (``python_files`` of the configuration governing it: the nearest rootdir's, read as data
  from the work tree; never ``conftest.py``, never a helper module under ``tests/``), or a
  non-Python file (a doctest file pytest was configured to read);
* a node id whose file is kept and whose class chain and function are defined in the work
  tree's text (a parametrized id by its function; a method a collected class may inherit,
  when the class has bases). A file that does not parse keeps its ids: pytest will say why,
  which is the verification the user needs.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from warpline.runners.pytest_command import file_of, rootdir_of
from warpline.runners.pytest_rules import (
    CONFIG_FILES,
    MAX_CONFIG_BYTES,
    TestRules,
    rules_from_texts,
)

_MAX_TEST_FILE_BYTES = 4 * 1024 * 1024


def collectable(root: Path, ids: Sequence[str]) -> list[str]:
    """The ids of ``ids`` pytest collects in the work tree at ``root``, in order."""
    rules: dict[str, TestRules] = {}
    parsed: dict[str, ast.Module | None] = {}
    out: list[str] = []
    for test_id in ids:
        path = file_of(test_id)
        disk = root / path if path not in ("", ".") else root
        if _regular_dir(root, disk):
            if "::" not in test_id:
                out.append(test_id)
            continue
        if not _regular_file(root, disk):
            continue
        if not path.endswith(".py"):
            out.append(test_id)  # a doctest text file: pytest reads it as configured
            continue
        base = rootdir_of(root, path)
        if base not in rules:
            rules[base] = _rules_at(root / base if base else root)
        project = rules[base]
        inner = path[len(base) + 1:] if base else path
        if path.rsplit("/", 1)[-1] == "conftest.py" or not _is_test_file(project, inner):
            continue
        if "::" not in test_id:
            out.append(test_id)
            continue
        if path not in parsed:
            parsed[path] = _parse(disk)
        tree = parsed[path]
        if tree is None or _defined(tree, node_parts(test_id), project):
            out.append(test_id)
    return out


def node_parts(test_id: str) -> list[str]:
    """The names after the file in a node id (``Class``, ``test[param]``): a
    parametrization's id may hold "::" itself (``test_errors[http://fe80::1-InvalidURL]``)."""
    head, bracket, param = test_id.partition("[")
    parts = head.split("::")[1:]
    if bracket and parts:
        parts[-1] += bracket + param
    return parts


def _is_test_file(rules: TestRules, path: str) -> bool:
    """pytest's own ``python_files`` rule (not warpline's wider ``tests/`` reading)."""
    return rules.matches_python_files(path)


def _regular_dir(root: Path, disk: Path) -> bool:
    try:
        return disk.is_dir() and not disk.is_symlink() and _inside(root, disk)
    except OSError:
        return False


def _regular_file(root: Path, disk: Path) -> bool:
    try:
        return disk.is_file() and not disk.is_symlink() and _inside(root, disk)
    except OSError:
        return False


def _inside(root: Path, disk: Path) -> bool:
    try:
        disk.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _rules_at(directory: Path) -> TestRules:
    texts: dict[str, str] = {}
    for name in CONFIG_FILES:
        candidate = directory / name
        try:
            if candidate.is_symlink() or not candidate.is_file() or \
                    candidate.stat().st_size > MAX_CONFIG_BYTES:
                continue
            texts[name] = candidate.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return rules_from_texts(texts)


def _parse(disk: Path) -> ast.Module | None:
    try:
        if disk.stat().st_size > _MAX_TEST_FILE_BYTES:
            return None
        return ast.parse(disk.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None


def _defined(tree: ast.Module, parts: list[str], rules: TestRules) -> bool:
    """Whether ``Class::Inner::function[param]`` (or ``Class``) names what pytest collects
    in ``tree``: a method missing from a class with bases may be inherited and counts; a
    name bound by assignment cannot be read statically and counts."""
    if not parts or not all(parts):
        return False
    *classes, last = parts
    name = last.split("[", 1)[0]
    body: list[ast.stmt] = tree.body
    owner: ast.ClassDef | None = None
    for cls in classes:
        found = _named(body, cls)
        if isinstance(found, (ast.Assign, ast.AnnAssign)):
            return True
        if not isinstance(found, ast.ClassDef) or not rules.collects_class(cls):
            return False
        owner, body = found, found.body
    target = _named(body, name)
    if isinstance(target, ast.ClassDef):
        return rules.collects_class(name)
    if target is not None:
        return rules.collects_function(name)
    return owner is not None and bool(owner.bases) and rules.collects_function(name)


def _named(body: list[ast.stmt], name: str) -> ast.stmt | None:
    """The last definition (or assignment: ``test_x = make_test()``) of ``name`` in
    ``body``; conditional definitions count."""
    found: ast.stmt | None = None
    for statement in _statements(body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if statement.name == name:
                found = statement
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) \
                else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                found = statement
    return found


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with the branches of ``if``/``try``/``with`` flattened in."""
    out: list[ast.stmt] = []
    for statement in body:
        out.append(statement)
        if isinstance(statement, ast.If):
            out += _statements(statement.body) + _statements(statement.orelse)
        elif isinstance(statement, ast.Try):
            out += _statements(statement.body) + _statements(statement.orelse) + \
                _statements(statement.finalbody)
            for handler in statement.handlers:
                out += _statements(handler.body)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            out += _statements(statement.body)
    return out
