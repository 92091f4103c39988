"""The tests of a work tree's cargo packages, read from the source (never built or run).

Each target's files (``cargo_rules.target_files``) are parsed with tree-sitter and their
item lists followed (inline ``mod`` bodies included, function bodies never): a test is a
function with a test attribute (``cargo_rules.is_test``), or an invocation of a
``macro_rules!`` of the package whose expansion is ``#[test] fn $name``. Ids are
``<file>::<libtest name>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from warpline.runners.cargo_command import Disk
from warpline.runners.cargo_rules import (
    TargetFiles,
    attributes,
    is_ignored,
    is_test,
    package_dir,
    split_id,
    target_files,
)

__all__ = ["CargoTest", "discover", "file_tests", "package_tests"]

_SKIP = frozenset({"target", ".git", "node_modules", ".venv", "vendor"})
_MAX_PACKAGES = 500


@dataclass(frozen=True, slots=True)
class CargoTest:
    test_id: str
    ignored: bool


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_rust

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_rust.language()))


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def test_macros(source: bytes) -> dict[str, int]:
    """``macro_rules!`` definitions expanding to ``#[test] fn $name``: name -> the
    position of ``$name`` among the matcher's ``$x:ident`` fragments."""
    if b"macro_rules" not in source:
        return {}
    out: dict[str, int] = {}
    stack = [_parser().parse(source).root_node]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type == "macro_definition":
                body = _text(child)
                fn = re.search(r"fn\s+\$(\w+)", body)
                idents = re.findall(r"\$(\w+)\s*:\s*ident", body)
                if "#[test]" in body.replace(" ", "") and fn and fn.group(1) in idents:
                    name = child.child_by_field_name("name")
                    if name is not None:
                        out[_text(name)] = idents.index(fn.group(1))
            elif child.type == "mod_item" or child.type == "declaration_list":
                stack.append(child)
    return out


def source_tests(source: bytes, macros: dict[str, int]) -> list[tuple[tuple[str, ...], bool]]:
    """(module path inside the file + name, ignored) of every test the file defines."""
    out: list[tuple[tuple[str, ...], bool]] = []
    stack: list[tuple[Any, tuple[str, ...]]] = [(_parser().parse(source).root_node, ())]
    while stack:
        node, inner = stack.pop()
        for child in node.named_children:
            if child.type == "function_item":
                attrs = attributes(child)
                name = child.child_by_field_name("name")
                if is_test(attrs) and name is not None:
                    out.append(((*inner, _text(name)), is_ignored(attrs)))
            elif child.type == "mod_item":
                body = child.child_by_field_name("body")
                name = child.child_by_field_name("name")
                if body is not None and name is not None:
                    stack.append((body, (*inner, _text(name))))
            elif child.type in ("macro_invocation", "expression_statement"):
                call = child if child.type == "macro_invocation" else (
                    child.named_children[0] if child.named_children else None)
                if call is None or call.type != "macro_invocation":
                    continue
                macro = call.child_by_field_name("macro")
                index = macros.get(_text(macro).rsplit("::", 1)[-1]) if macro else None
                tree = next((c for c in call.named_children if c.type == "token_tree"), None)
                if index is None or tree is None:
                    continue
                idents = [_text(c) for c in tree.named_children if c.type == "identifier"]
                if index < len(idents):
                    out.append(((*inner, idents[index]), False))
    return out


def package_tests(disk: Disk, found: TargetFiles) -> list[CargoTest]:
    macros: dict[str, int] = {}
    sources = {path: disk.read(path) for path in found.files}
    for source in sources.values():
        if source is not None:
            macros.update(test_macros(source))
    tests: list[CargoTest] = []
    for path, (_, modpath) in sorted(found.files.items()):
        source = sources.get(path)
        if source is None:
            continue
        for names, ignored in source_tests(source, macros):
            tests.append(CargoTest(f"{path}::{'::'.join((*modpath, *names))}", ignored))
    return tests


def _package_dirs(root: Path) -> list[str]:
    disk = Disk(root)
    found: list[str] = []
    stack = [""]
    while stack and len(found) < _MAX_PACKAGES:
        directory = stack.pop()
        data = disk.read(f"{directory}/Cargo.toml" if directory else "Cargo.toml")
        if data is not None and b"[package]" in data:
            found.append(directory)
        depth = directory.count("/") + 1 if directory else 0
        if depth >= 4:
            continue
        for name in disk.listdir(directory):
            if name in _SKIP or name.startswith("."):
                continue
            sub = f"{directory}/{name}" if directory else name
            if (root / sub).is_dir() and not (root / sub).is_symlink():
                stack.append(sub)
    return sorted(found)


def discover(root: Path) -> list[CargoTest]:
    """Every test of every package in the work tree (ignored ones flagged)."""
    disk = Disk(root)
    out: list[CargoTest] = []
    for directory in _package_dirs(root):
        found = package_dir(f"{directory}/Cargo.toml" if directory else "Cargo.toml",
                            disk.read)
        if found is None:
            continue
        out.extend(package_tests(disk, target_files(found[0], found[1], disk.read,
                                                    disk.listdir)))
    return out


def file_tests(root: Path, path: str) -> list[str]:
    """The ids of the tests (not ignored) defined in the work tree's file ``path``."""
    disk = Disk(root)
    found = package_dir(path, disk.read)
    if found is None:
        return []
    files = target_files(found[0], found[1], disk.read, disk.listdir)
    if path not in files.files:
        return []
    return [t.test_id for t in package_tests(disk, files)
            if not t.ignored and split_id(t.test_id)[0] == path]
