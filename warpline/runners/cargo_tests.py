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

from warpline.runners.cargo_command import Disk, suite
from warpline.runners.cargo_rules import (
    TargetFiles,
    attributes,
    is_ignored,
    is_test,
    package_dir,
    split_id,
    target_files,
)

__all__ = ["CargoTest", "Macro", "discover", "file_tests", "macro_definitions", "package_tests",
           "source_tests", "test_macros"]

_SKIP = frozenset({"target", ".git", "node_modules", ".venv", "vendor"})
_MAX_PACKAGES = 500


@dataclass(frozen=True, slots=True)
class CargoTest:
    """One test cargo runs: its id, and whether it is ``#[ignore]``d."""
    test_id: str
    ignored: bool


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_rust

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_rust.language()))


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


@dataclass(frozen=True, slots=True)
class Macro:
    """A ``macro_rules!``: whether a rule expands to ``#[test] fn $name``, the macros its
    rules invoke, and the literal words of its matchers (``not`` of ``(not, $n:ident)``)."""

    direct: bool
    invokes: frozenset[str]
    literals: frozenset[str]


def macro_definitions(source: bytes) -> dict[str, Macro]:
    """The ``macro_rules!`` of a file (at any module depth)."""
    if b"macro_rules" not in source:
        return {}
    out: dict[str, Macro] = {}
    stack = [_parser().parse(source).root_node]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type == "macro_definition":
                name = child.child_by_field_name("name")
                body = _text(child)
                literals = {_text(w) for rule in child.named_children
                            if rule.type == "macro_rule"
                            for w in (rule.child_by_field_name("left") or rule).named_children
                            if w.type == "identifier"}
                if name is not None:
                    out[_text(name)] = Macro(
                        "#[test]" in body.replace(" ", "") and bool(
                            re.search(r"fn\s+\$\w+", body)),
                        frozenset(re.findall(r"([A-Za-z_]\w*)!\s*[(\[{]", body)),
                        frozenset(literals))
            elif child.type in ("mod_item", "declaration_list"):
                stack.append(child)
    return out


def test_macros(found: dict[str, Macro]) -> dict[str, Macro]:
    """The macros whose invocation defines a test: directly, or by invoking one that
    does (``literal!`` -> ``extract!`` in globset's tests)."""
    testing = {name for name, macro in found.items() if macro.direct}
    grew = True
    while grew:
        more = {name for name, macro in found.items()
                if name not in testing and macro.invokes & testing}
        testing |= more
        grew = bool(more)
    return {name: found[name] for name in testing}


def source_tests(source: bytes, macros: dict[str, Macro], features: frozenset[str] | None
                 = None) -> list[tuple[tuple[str, ...], bool, int]]:
    """(module path inside the file + name, ignored, line) of every test the file defines
    in the suite's build (an item whose ``#[cfg]`` is known false is not there)."""
    from warpline.runners.cargo_cfg import active

    out: list[tuple[tuple[str, ...], bool, int]] = []
    stack: list[tuple[Any, tuple[str, ...]]] = [(_parser().parse(source).root_node, ())]
    while stack:
        node, inner = stack.pop()
        for child in node.named_children:
            if child.type in ("function_item", "mod_item", "macro_invocation",
                              "expression_statement") and not active(attributes(child),
                                                                      features):
                continue
            if child.type == "function_item":
                attrs = attributes(child)
                name = child.child_by_field_name("name")
                if is_test(attrs) and name is not None:
                    out.append(((*inner, _text(name)), is_ignored(attrs),
                                name.start_point[0] + 1))
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
                found = macros.get(_text(macro).rsplit("::", 1)[-1]) if macro else None
                tree = next((c for c in call.named_children if c.type == "token_tree"), None)
                if found is None or tree is None:
                    continue
                named = next((_text(c) for c in tree.named_children if c.type == "identifier"
                              and _text(c) not in found.literals), None)
                if named is not None:
                    out.append(((*inner, named), False, call.start_point[0] + 1))
    return out


def package_tests(disk: Disk, found: TargetFiles) -> list[CargoTest]:
    sources = {path: disk.read(path) for path in found.files}
    defined: dict[str, Macro] = {}
    for source in sources.values():
        if source is not None:
            defined.update(macro_definitions(source))
    macros = test_macros(defined)
    tests: list[CargoTest] = []
    for path, (_, modpath) in sorted(found.files.items()):
        source = sources.get(path)
        if source is None:
            continue
        for names, ignored, _ in source_tests(source, macros, found.features):
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
    every = suite(root).all_features
    out: list[CargoTest] = []
    for directory in _package_dirs(root):
        found = package_dir(f"{directory}/Cargo.toml" if directory else "Cargo.toml",
                            disk.read)
        if found is None:
            continue
        out.extend(package_tests(disk, target_files(found[0], found[1], disk.read,
                                                    disk.listdir, every)))
    return out


def file_tests(root: Path, path: str) -> list[str]:
    """The ids of the tests (not ignored) defined in the work tree's file ``path``."""
    disk = Disk(root)
    found = package_dir(path, disk.read)
    if found is None:
        return []
    files = target_files(found[0], found[1], disk.read, disk.listdir, suite(root).all_features)
    if path not in files.files:
        return []
    return [t.test_id for t in package_tests(disk, files)
            if not t.ignored and split_id(t.test_id)[0] == path]
