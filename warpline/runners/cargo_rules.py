"""cargo's tests, found in the source as cargo and libtest find them.

* Packages: a ``Cargo.toml`` with a ``[package]``; a workspace's members are the packages
  below it. Targets as cargo names them: the library (``[lib]``, default
  ``src/lib.rs``, named after the package with ``-`` -> ``_``), binaries (``[[bin]]``,
  ``src/main.rs``, ``src/bin/*.rs``, ``src/bin/*/main.rs``), integration tests
  (``[[test]]``, and unless ``autotests = false`` every ``tests/*.rs`` and
  ``tests/*/main.rs``), with their ``required-features``. Examples and benches are not
  run by ``cargo test`` by default: not targets here.
* Files: a target's root and every file its ``mod x;`` declarations reach (``x.rs`` or
  ``x/mod.rs``; beside a root or a ``mod.rs`` in its directory, else in the directory named
  after the file; ``#[path = "…"]`` wins), with the module path libtest names tests by.
* Tests: a function with ``#[test]`` or an attribute ``<path>::test`` (``#[tokio::test]``,
  ``#[async_std::test(...)]``); ``#[ignore]`` ones are not run by ``cargo test``.

A test id is ``<repo-relative file>::<libtest name>`` (``crates/searcher/src/lib.rs::
tests::it_works``): the file names its package and target, the name is what libtest's
``--exact`` matches. Reads go through ``read(path) -> bytes | None`` and ``listdir(dir)
-> names``: the commit's tree or the work tree, as data (never run).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["Target", "TargetFiles", "attributes", "is_ignored", "is_test", "package_dir",
           "split_id", "target_files"]

Read = Callable[[str], bytes | None]
ListDir = Callable[[str], list[str]]

# `mod x;` with the attributes above it (`#[path = "…"]`, `#[cfg(…)]`).
_MOD = re.compile(rb"^((?:[ \t]*#\[[^\]\n]*\][ \t]*\r?\n)*)[ \t]*(?:#\[[^\]\n]*\][ \t]*)*"
                  rb"(?:pub(?:\([^)]*\))?[ \t]+)?mod[ \t]+(r#)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*;",
                  re.M)
_PATH = re.compile(rb'#\[path\s*=\s*"([^"]+)"\]')
_CFG = re.compile(rb"#\[(cfg\(.*\))\]")
_MAX_FILES = 20_000


@dataclass(frozen=True, slots=True)
class Target:
    """One cargo target a test runs in: ``kind`` ``lib``/``bin``/``test``."""

    package: str
    package_dir: str  # repo-relative, "" at the root
    kind: str
    name: str
    root: str  # repo-relative root file
    required_features: tuple[str, ...] = ()

    def selector(self) -> list[str]:
        """cargo's arguments naming the target (``--lib``, ``--bin rg``, ``--test x``)."""
        if self.kind == "lib":
            return ["--lib"]
        return [f"--{self.kind}", self.name]


@dataclass(frozen=True, slots=True)
class TargetFiles:
    """A package's targets, and each of its files' target and module path."""

    targets: tuple[Target, ...]
    files: dict[str, tuple[Target, tuple[str, ...]]]
    features: frozenset[str] | None = None  # enabled in the suite's build (None: all)


def attributes(node: Any) -> list[str]:
    """The attributes above a tree-sitter item node, whitespace dropped (``test``,
    ``cfg(test)``, ``tokio::test(flavor="multi_thread")``), nearest first."""
    out: list[str] = []
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment",
                                                   "block_comment"):
        if sibling.type == "attribute_item" and sibling.named_children:
            raw = sibling.named_children[0].text or b""
            out.append("".join(raw.decode("utf-8", "replace").split()))
        sibling = sibling.prev_named_sibling
    return out


def is_test(attrs: list[str]) -> bool:
    for attr in attrs:
        head = attr.split("(", 1)[0]
        if head == "test" or head.endswith("::test"):
            return True
    return False


def is_ignored(attrs: list[str]) -> bool:
    return any(a == "ignore" or a.startswith(("ignore=", "ignore(")) for a in attrs)


def split_id(test_id: str) -> tuple[str, str]:
    """``crates/a/src/lib.rs::tests::x`` -> (``crates/a/src/lib.rs``, ``tests::x``)."""
    path, sep, name = test_id.partition(".rs::")
    return (path + ".rs", name) if sep else (test_id, "")


def package_dir(path: str, read: Read) -> tuple[str, dict[str, Any]] | None:
    """The nearest directory above ``path`` whose ``Cargo.toml`` has a ``[package]``,
    and that manifest."""
    parts = path.split("/")[:-1]
    for depth in range(len(parts), -1, -1):
        directory = "/".join(parts[:depth])
        manifest = manifest_at(directory, read)
        if manifest is not None and isinstance(manifest.get("package"), dict):
            return directory, manifest
    return None


def manifest_at(directory: str, read: Read) -> dict[str, Any] | None:
    data = read(f"{directory}/Cargo.toml" if directory else "Cargo.toml")
    return _toml(data) if data is not None else None


@lru_cache(maxsize=256)
def _toml(data: bytes) -> dict[str, Any] | None:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _join(directory: str, rel: str) -> str:
    parts = [p for p in f"{directory}/{rel}".split("/") if p not in ("", ".")]
    out: list[str] = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        else:
            out.append(part)
    return "/".join(out)


def targets(directory: str, manifest: dict[str, Any], read: Read,
            listdir: ListDir) -> list[Target]:
    package = manifest.get("package", {})
    name = str(package.get("name", "")) if isinstance(package, dict) else ""
    out: list[Target] = []

    def features(entry: dict[str, Any]) -> tuple[str, ...]:
        found = entry.get("required-features", [])
        return tuple(str(f) for f in found) if isinstance(found, list) else ()

    found_lib = manifest.get("lib")
    lib: dict[str, Any] = found_lib if isinstance(found_lib, dict) else {}
    lib_path = _join(directory, str(lib.get("path", "src/lib.rs")))
    if read(lib_path) is not None:
        out.append(Target(name, directory, "lib",
                          str(lib.get("name", name)).replace("-", "_"), lib_path))
    explicit: set[str] = set()
    for kind, key, auto_key, defaults in (
            ("bin", "bin", "autobins", _bin_defaults), ("test", "test", "autotests",
                                                        _test_defaults)):
        entries = manifest.get(key, [])
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict) or "name" not in entry:
                continue
            default = "src/main.rs" if kind == "bin" and entry["name"] == name \
                else f"src/bin/{entry['name']}.rs" if kind == "bin" \
                else f"tests/{entry['name']}.rs"
            root = _join(directory, str(entry.get("path", default)))
            explicit.add(root)
            out.append(Target(name, directory, kind, str(entry["name"]), root, features(entry)))
        if package.get(auto_key, True) is not False if isinstance(package, dict) else True:
            for target_name, root in defaults(directory, name, read, listdir):
                if root not in explicit:
                    out.append(Target(name, directory, kind, target_name, root))
    return out


def _bin_defaults(directory: str, name: str, read: Read,
                  listdir: ListDir) -> list[tuple[str, str]]:
    found = []
    main = _join(directory, "src/main.rs")
    if read(main) is not None:
        found.append((name, main))
    found.extend(_dir_targets(_join(directory, "src/bin"), read, listdir))
    return found


def _test_defaults(directory: str, name: str, read: Read,
                   listdir: ListDir) -> list[tuple[str, str]]:
    return _dir_targets(_join(directory, "tests"), read, listdir)


def _dir_targets(directory: str, read: Read, listdir: ListDir) -> list[tuple[str, str]]:
    found = []
    for entry in sorted(listdir(directory)):
        if entry.endswith(".rs"):
            found.append((entry[:-3], f"{directory}/{entry}"))
        elif read(f"{directory}/{entry}/main.rs") is not None:
            found.append((entry, f"{directory}/{entry}/main.rs"))
    return found


def target_files(directory: str, manifest: dict[str, Any], read: Read,
                 listdir: ListDir, all_features: bool = False) -> TargetFiles:
    """Every file of the package's targets with its target and module path (the first
    target reaching a file keeps it: the library before binaries before tests); a
    ``mod`` whose ``#[cfg]`` is known false in the suite's build is not followed."""
    from warpline.runners.cargo_cfg import active, enabled_features

    features = enabled_features(manifest, all_features)
    found = targets(directory, manifest, read, listdir)
    files: dict[str, tuple[Target, tuple[str, ...]]] = {}
    for target in found:
        stack: list[tuple[str, tuple[str, ...], bool]] = [(target.root, (), True)]
        while stack and len(files) < _MAX_FILES:
            path, modpath, owns_dir = stack.pop()
            if path in files:
                continue
            data = read(path)
            if data is None:
                continue
            files[path] = (target, modpath)
            base, _, filename = path.rpartition("/")
            here = base if owns_dir or filename == "mod.rs" else \
                f"{base}/{filename[:-3]}" if base else filename[:-3]
            for match in _MOD.finditer(data):
                head, child = match.group(0)[: match.start(3) - match.start(0)], \
                    match.group(3).decode()
                cfgs = ["".join(c.decode("utf-8", "replace").split())
                        for c in _CFG.findall(head)]
                if not active(cfgs, features):
                    continue
                attr = _PATH.search(head)
                if attr:
                    stack.append((_join(base, attr.group(1).decode()), (*modpath, child),
                                  False))
                    continue
                flat = _join(here, f"{child}.rs")
                nested = _join(here, f"{child}/mod.rs")
                stack.append((flat if read(flat) is not None else nested, (*modpath, child),
                              False))
    return TargetFiles(tuple(found), files,
                       frozenset(features) if features is not None else None)
