"""cargo in a work tree: detection, the tests there, the whole suite and a selection's
command.

* Detected by a ``Cargo.toml`` at the root (a package or a workspace), else one at most
  two levels below it (read as data: bounded, never a symlink).
* The whole suite is ``cargo test`` (``--workspace`` at a workspace root); where the
  repository's CI runs its tests with ``cargo nextest`` or ``--all-features``
  (``.github/workflows/*.yml``, ``.gitlab-ci.yml``, ``.circleci/config.yml``), the suite
  says so, since ``cargo test`` alone skips what those features gate.
* A selection is one ``cargo test`` per target: ``cargo test -p <package> --lib -- --exact
  a::b c::d`` (``--bin <name>``, ``--test <name>``; ``--features`` for a target's
  ``required-features``, ``--all-features`` where CI uses it), joined with ``&&``; a
  package outside the root's workspace is named by ``--manifest-path``. Past ``max_ids``
  a file's tests are run by its module path (``-- a::b::``, not ``--exact``).
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warpline.runners.cargo_rules import (
    Target,
    TargetFiles,
    manifest_at,
    package_dir,
    split_id,
    target_files,
)

__all__ = ["Disk", "command", "command_lines", "detect", "invocations", "placed", "whole_suite"]

_MAX_READ = 1 << 22
_CI_FILES = (".gitlab-ci.yml", ".circleci/config.yml")
_SKIP_DIRS = frozenset({"target", ".git", "node_modules", ".venv", "vendor"})


class Disk:
    """Reads of a work tree: regular files only, bounded, never through a symlink."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, rel: str) -> Path | None:
        path = self.root / rel if rel else self.root
        try:
            resolved = path.resolve()
        except OSError:
            return None
        root = self.root.resolve()
        if resolved != root and root not in resolved.parents:
            return None
        return path

    def read(self, rel: str) -> bytes | None:
        path = self._path(rel)
        if path is None or path.is_symlink() or not path.is_file():
            return None
        try:
            if path.stat().st_size > _MAX_READ:
                return None
            return path.read_bytes()
        except OSError:
            return None

    def listdir(self, rel: str) -> list[str]:
        path = self._path(rel)
        if path is None or path.is_symlink() or not path.is_dir():
            return []
        try:
            return sorted(os.listdir(path))
        except OSError:
            return []


def detect(root: Path) -> bool:
    disk = Disk(root)
    if disk.read("Cargo.toml") is not None:
        return True
    for first in disk.listdir(""):
        if first in _SKIP_DIRS or first.startswith("."):
            continue
        if disk.read(f"{first}/Cargo.toml") is not None:
            return True
        for second in disk.listdir(first)[:200]:
            if second not in _SKIP_DIRS and disk.read(f"{first}/{second}/Cargo.toml"):
                return True
    return False


def _ci_texts(disk: Any) -> list[str]:
    texts = []
    for name in disk.listdir(".github/workflows"):
        if name.endswith((".yml", ".yaml")):
            data = disk.read(f".github/workflows/{name}")
            if data is not None:
                texts.append(data.decode("utf-8", "replace"))
    for name in _CI_FILES:
        data = disk.read(name)
        if data is not None:
            texts.append(data.decode("utf-8", "replace"))
    return texts


@dataclass(frozen=True, slots=True)
class Suite:
    """How the repository's CI runs its whole suite (nextest, --all-features, a workspace)."""
    nextest: bool
    all_features: bool
    workspace: bool


def suite(root: Path) -> Suite:
    return suite_from(Disk(root))


def suite_from(files: Any) -> Suite:
    """The suite as the CI config of ``files`` (a work tree or a commit: ``read``,
    ``listdir``) runs it."""
    lines = [line for text in _ci_texts(files) for line in text.splitlines()
             if "cargo" in line and ("test" in line or "nextest" in line)]
    manifest = manifest_at("", files.read) or {}
    return Suite(nextest=any("nextest" in line for line in lines),
                 all_features=any("--all-features" in line for line in lines),
                 workspace=isinstance(manifest.get("workspace"), dict))


def whole_suite(root: Path) -> str:
    found = suite(root)
    parts = ["cargo", "nextest", "run"] if found.nextest else ["cargo", "test"]
    if found.workspace:
        parts.append("--workspace")
    if found.all_features:
        parts.append("--all-features")
    return " ".join(parts)


def _members(root_manifest: dict[str, Any]) -> list[str]:
    workspace = root_manifest.get("workspace")
    members = workspace.get("members", []) if isinstance(workspace, dict) else []
    return [str(m).rstrip("/") for m in members] if isinstance(members, list) else []


def _files_of(disk: Disk, directory: str, manifest: dict[str, Any],
              memo: dict[str, TargetFiles]) -> TargetFiles:
    if directory not in memo:
        memo[directory] = target_files(directory, manifest, disk.read, disk.listdir,
                                       suite_from(disk).all_features)
    return memo[directory]


@dataclass(frozen=True, slots=True)
class Invocation:
    """One cargo run: a target and the test names it runs (``--exact`` or by path prefix)."""
    target: Target
    names: tuple[str, ...]
    exact: bool


def invocations(root: Path, ids: Sequence[str]) -> list[Invocation]:
    """One run per target, in the order of the ids' first appearance; an id whose file
    belongs to no target of a package is left out (``collectable`` drops it first)."""
    disk = Disk(root)
    memo: dict[str, TargetFiles] = {}
    groups: dict[tuple[Target, bool], list[str]] = {}
    for test_id in ids:
        path, name = split_id(test_id)
        found = package_dir(path, disk.read)
        placed = _files_of(disk, found[0], found[1], memo).files.get(path) \
            if found is not None else None
        target, modpath = placed if placed is not None else _guess(path)
        if name:
            groups.setdefault((target, True), []).append(name)
        else:  # a whole file: its module's tests, by prefix
            groups.setdefault((target, False), []).append(
                "::".join(modpath) + "::" if modpath else "")
    return [Invocation(target, tuple(dict.fromkeys(names)), exact)
            for (target, exact), names in groups.items()]


def placed(root: Path, ids: Sequence[str]) -> list[str]:
    """The ids whose file belongs to a target of a package in the work tree, and whose
    test (an exact name) is still defined there: what a command can run."""
    from warpline.runners.cargo_tests import package_tests

    disk = Disk(root)
    memo: dict[str, TargetFiles] = {}
    defined: dict[str, set[str]] = {}
    out = []
    for test_id in ids:
        path, name = split_id(test_id)
        found = package_dir(path, disk.read)
        if found is None or path not in _files_of(disk, found[0], found[1], memo).files:
            continue
        if name:
            if found[0] not in defined:
                defined[found[0]] = {t.test_id for t in package_tests(disk, memo[found[0]])}
            if test_id not in defined[found[0]]:
                continue
        out.append(test_id)
    return out


def _guess(path: str) -> tuple[Target, tuple[str, ...]]:
    """A file no package of the work tree places (not there yet): its target by cargo's
    layout (``tests/x.rs`` -> ``--test x``, else the library)."""
    parts = path.split("/")
    if "tests" in parts[:-1]:
        index = parts.index("tests")
        name = parts[index + 1][:-3] if len(parts) == index + 2 else parts[index + 1]
        return Target("", "", "test", name, path), ()
    return Target("", "", "lib", "", path), ()


def _argv(root: Path, inv: Invocation, found: Suite, root_manifest: dict[str, Any]) -> list[str]:
    argv = ["cargo", "test"]
    target = inv.target
    members = _members(root_manifest)
    in_workspace = target.package_dir == "" or any(
        fnmatch.fnmatch(target.package_dir, m) for m in members)
    if target.package and in_workspace and (target.package_dir != "" or members):
        argv += ["-p", target.package]
    elif not in_workspace:
        argv += ["--manifest-path", f"{target.package_dir}/Cargo.toml"]
    argv += target.selector()
    if found.all_features:
        argv.append("--all-features")
    elif target.required_features:
        argv += ["--features", ",".join(target.required_features)]
    names = [n for n in inv.names if n]
    if inv.exact:
        argv += ["--", "--exact", *names]
    elif names and len(names) == len(inv.names):
        argv += ["--", *names]
    return argv


def command_lines(root: Path, ids: Sequence[str]) -> list[str]:
    found = suite(root)
    root_manifest = manifest_at("", Disk(root).read) or {}
    return [" ".join(shlex.quote(a) for a in _argv(root, inv, found, root_manifest))
            for inv in invocations(root, ids)]


def command(root: Path, ids: Sequence[str]) -> tuple[str, bool] | None:
    from warpline.runners.cargo import MAX_IDS
    from warpline.runners.row import capped

    chosen, widened = capped(ids, MAX_IDS, lambda i: split_id(i)[0])
    lines = command_lines(root, chosen)
    return (" && ".join(lines), widened) if lines else None
