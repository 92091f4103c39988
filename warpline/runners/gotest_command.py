"""``go test``: detection from ``go.mod``, the modules of a work tree, and the command that
runs exactly a selection.

A test id is ``<repo-relative file>::<Name>`` (``pkg/x_test.go::TestParse``), a subtest
``…::<Name>/<sub>`` (as ``go test -v`` names it). The command runs from the repository
root, one ``go test`` per package and subtest filter, joined with ``&&``:

    go test ./pkg -count=1 -run '^(TestA|TestB)$'
    go test . -count=1 -run '^TestC$/^(one|two)$'
    (cd tools && go test ./lint -count=1 -run '^TestL$')     # a module in a subdirectory

``-count=1``: a result from ``go test``'s cache is not a run (nothing executed), and a
selection is run to be seen passing or failing now.
``-run`` splits on ``/`` and matches every level, so a test with chosen subtests gets its
own invocation (``^TestC$/^(one|two)$`` would filter the subtests of every other test
named beside it). Names are escaped as Go's ``regexp.QuoteMeta`` does.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from warpline.runners.gotest_rules import GoTest, runs_by_default, tests_in
from warpline.runners.row import capped

__all__ = ["MAX_IDS", "collectable", "command", "command_lines", "detect", "discover",
           "file_tests", "invocation_argv", "invocations", "module_dir", "owns", "quote_meta",
           "split_id", "test_file"]

MAX_IDS = 500
MAX_GO_MOD_BYTES = 1 << 20
MAX_TEST_FILE_BYTES = 4 << 20
_MAX_WALK_DEPTH = 12
DETECT_DEPTH = 3
_MAX_DETECT_DIRS = 2000
_META = set("\\.+*?()|[]{}^$")


def quote_meta(text: str) -> str:
    """Go's ``regexp.QuoteMeta``: every regexp metacharacter backslash-escaped."""
    return "".join("\\" + c if c in _META else c for c in text)


def owns(test_id: str) -> bool:
    return test_id.split("::", 1)[0].endswith(".go")


def test_file(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def split_id(test_id: str) -> tuple[str, str, tuple[str, ...]]:
    """(file, test name, subtest path) of an id; a file id has name ""."""
    path, _, name = test_id.partition("::")
    top, *subs = name.split("/") if name else [""]
    return path, top, tuple(subs)


def _regular(path: Path) -> bool:
    try:
        return path.is_file() and not path.is_symlink()
    except OSError:
        return False


def _skipped_dir(name: str) -> bool:
    # `go` ignores these directories for `./...` (and so do its package patterns).
    return name.startswith((".", "_")) or name in ("testdata", "vendor")


def _walk(root: Path) -> list[tuple[str, list[str]]]:
    """(repo-relative directory, its file names) for every directory ``go`` would see."""
    out: list[tuple[str, list[str]]] = []
    base = len(root.parts)
    for here, dirs, files in os.walk(root, followlinks=False):
        path = Path(here)
        depth = len(path.parts) - base
        dirs[:] = sorted(d for d in dirs if not _skipped_dir(d)) if depth < _MAX_WALK_DEPTH \
            else []
        out.append(("/".join(path.parts[base:]), sorted(files)))
    return out


def _go_mod(path: Path) -> bool:
    try:
        return _regular(path) and path.stat().st_size <= MAX_GO_MOD_BYTES
    except OSError:
        return False


def detect(root: Path) -> bool:
    """The repository holds a Go module: a ``go.mod`` at its root or in a directory up to
    ``DETECT_DEPTH`` below it (a regular file within bounds; read as data, never run).
    Asked on every answer that selects tests, so it never walks the whole tree."""
    if _go_mod(root / "go.mod"):
        return True
    level = [root]
    for _ in range(DETECT_DEPTH):
        following = []
        for directory in level:
            try:
                children = sorted(p for p in directory.iterdir()
                                  if p.is_dir() and not p.is_symlink()
                                  and not _skipped_dir(p.name) and p.name != "node_modules")
            except OSError:
                continue
            if any(_go_mod(child / "go.mod") for child in children):
                return True
            following.extend(children)
        level = following[:_MAX_DETECT_DIRS]
    return False


def module_dir(root: Path, directory: str) -> str | None:
    """The repo-relative directory of the nearest ``go.mod`` at or above ``directory``
    (``""``: the root); None when no module holds it."""
    parts = [p for p in directory.split("/") if p]
    while True:
        if _regular(root.joinpath(*parts, "go.mod")):
            return "/".join(parts)
        if not parts:
            return None
        parts.pop()


def _module_or_root(root: Path, directory: str) -> str:
    # A work tree without its go.mod (not checked out yet): the command still names the
    # package from the root, which is where `go` will look for the module.
    found = module_dir(root, directory)
    return found if found is not None else ""


def discover(root: Path) -> list[GoTest]:
    """Every test ``go test ./...`` runs in every module of the work tree (benchmarks
    included, marked: they run only with ``-bench``)."""
    found: list[GoTest] = []
    for directory, files in _walk(root):
        for name in files:
            if not name.endswith("_test.go"):
                continue
            rel = f"{directory}/{name}" if directory else name
            source = _read(root / rel)
            if source is not None:
                found.extend(tests_in(rel, source))
    return found


def _read(path: Path) -> bytes | None:
    try:
        if not _regular(path) or path.stat().st_size > MAX_TEST_FILE_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _file_tests(root: Path, path: str) -> list[GoTest]:
    source = _read(root / path)
    return [t for t in tests_in(path, source) if runs_by_default(t.kind)] \
        if source is not None else []


def collectable(root: Path, ids: Sequence[str]) -> list[str]:
    """The ids ``go test`` would run in the work tree, in order: a test whose file no
    longer defines it, or a benchmark, is dropped; a subtest is kept while its test is
    there (subtests with computed names cannot be checked statically)."""
    present: dict[str, set[str]] = {}
    out = []
    for test_id in ids:
        path, name, _ = split_id(test_id)
        if path not in present:
            present[path] = {t.name for t in _file_tests(root, path)}
        if (not name and present[path]) or name in present[path]:
            out.append(test_id)
    return out


Groups = dict[tuple[str, str], dict[str, set[tuple[str, ...]]]]


def _groups(root: Path, ids: Sequence[str]) -> Groups:
    """(module dir, package dir below it) -> test name -> chosen subtest paths (an empty
    path: the whole test)."""
    groups: dict[tuple[str, str], dict[str, set[tuple[str, ...]]]] = {}
    for test_id in ids:
        path, name, subs = split_id(test_id)
        directory = path.rpartition("/")[0]
        module = _module_or_root(root, directory)
        package = directory[len(module):].lstrip("/") if module else directory
        tests = groups.setdefault((module, package), {})
        names = [name] if name else [t.name for t in _file_tests(root, path)]
        for each in names:
            tests.setdefault(each, set()).add(subs if name else ())
    return groups


def _line(module: str, package: str, pattern: str | None) -> str:
    return shlex.join(invocation_argv(package, pattern)) if not module else \
        f"(cd {shlex.quote(module)} && {shlex.join(invocation_argv(package, pattern))})"


def invocation_argv(package: str, pattern: str | None) -> list[str]:
    """``go test`` for one package (``...``: every package of the module), run from its
    module's directory; ``pattern`` None runs every test."""
    target = "./..." if package == "..." else (f"./{package}" if package else ".")
    return ["go", "test", target, "-count=1", *(["-run", pattern] if pattern else [])]


def invocations(root: Path, ids: Sequence[str]) -> list[tuple[str, str, str | None]]:
    """(module dir, package dir below it, ``-run`` pattern or None for all its tests) per
    ``go test`` the ids need, in order of first appearance."""
    out: list[tuple[str, str, str | None]] = []
    for (module, package), tests in _groups(root, list(dict.fromkeys(ids))).items():
        whole = [name for name, subs in tests.items() if () in subs]
        if whole:
            # Every test of the package chosen: no -run (the same tests, a shorter line).
            every = _package_tests(root, module, package) if len(whole) > 1 else set()
            out.append((module, package, None if every and set(whole) >= every
                        else _alternation(whole)))
        for name, subs in tests.items():
            if () in subs:
                continue
            by_parent: dict[tuple[str, ...], list[str]] = {}
            for sub in sorted(subs):
                if any(sub[:n] in subs for n in range(1, len(sub))):
                    continue  # a chosen ancestor runs it already
                by_parent.setdefault(sub[:-1], []).append(sub[-1])
            for parent, last in by_parent.items():
                levels = [_alternation([name]), *(_alternation([p]) for p in parent),
                          _alternation(last)]
                out.append((module, package, "/".join(levels)))
    return out


def _package_tests(root: Path, module: str, package: str) -> set[str]:
    """The names of every test ``go test`` runs in one package directory."""
    directory = root.joinpath(*[p for p in f"{module}/{package}".split("/") if p])
    try:
        names = sorted(p.name for p in directory.iterdir() if p.name.endswith("_test.go"))
    except OSError:
        return set()
    rel = "/".join(p for p in f"{module}/{package}".split("/") if p)
    return {t.name for name in names
            for t in _file_tests(root, f"{rel}/{name}" if rel else name)}


def command_lines(root: Path, ids: Sequence[str]) -> list[str]:
    """One ``go test`` per package (and per test whose subtests were chosen), in order of
    first appearance; each runnable alone from the root. A package whose every test is
    chosen runs without ``-run``."""
    return [_line(module, package, pattern)
            for module, package, pattern in invocations(root, ids)]


def file_tests(root: Path, path: str) -> list[str]:
    """The ids of the tests ``go test`` runs in one work-tree file."""
    return [t.test_id for t in _file_tests(root, path)]


def _alternation(names: list[str]) -> str:
    quoted = [quote_meta(n) for n in dict.fromkeys(names)]
    return f"^{quoted[0]}$" if len(quoted) == 1 else f"^({'|'.join(quoted)})$"


def command(root: Path, ids: Sequence[str]) -> tuple[str, bool] | None:
    """(the command, whether ids were widened to whole files past ``MAX_IDS``); None
    without ids."""
    unique, widened = capped(ids, MAX_IDS, test_file)
    if not unique:
        return None
    lines = command_lines(root, unique)
    return (" && ".join(lines), widened) if lines else None
