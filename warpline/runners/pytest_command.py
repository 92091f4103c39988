"""One ready-to-run pytest command for a set of test ids, grouped so that it collects.

A repository can hold several pytest projects (an ``examples/tutorial`` with its own
``pytest.ini`` or ``[tool.pytest.ini_options]``): their tests collect only when pytest runs
from their own rootdir, with their own configuration and conftest files. Ids are grouped by
the nearest directory holding a pytest configuration (the repository root when none does);
the root group runs as ``pytest ids``, every other as ``(cd DIR && pytest ids)``, joined
with ``&&`` so the command fails when any group fails.

Ids are node ids (``path::Class::test[param]``), class ids or file paths, all relative to
the repository root. Past ``MAX_IDS`` the command names whole files instead (more tests,
never fewer).
"""

from __future__ import annotations

import shlex
from functools import lru_cache
from pathlib import Path

from warpline.runners.row import capped

MAX_IDS = 500
_CONFIG_MARKERS = (
    ("pytest.ini", None),
    (".pytest.ini", None),
    ("pyproject.toml", "[tool.pytest.ini_options]"),
    ("tox.ini", "[pytest]"),
    ("setup.cfg", "[tool:pytest]"),
)
_MAX_CONFIG_BYTES = 1 << 20


def file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


@lru_cache(maxsize=4096)
def _declares_pytest(directory: str) -> bool:
    base = Path(directory)
    for name, marker in _CONFIG_MARKERS:
        candidate = base / name
        try:
            if not candidate.is_file() or candidate.is_symlink():
                continue
            if marker is None:
                return True
            if candidate.stat().st_size <= _MAX_CONFIG_BYTES and marker in candidate.read_text(
                    encoding="utf-8", errors="replace"):
                return True
        except OSError:
            continue
    return False


def uses_pytest(root: Path) -> bool:
    """The repository's root declares pytest, or holds a ``conftest.py``: a project whose
    whole suite ``pytest`` runs."""
    return _declares_pytest(str(root)) or (root / "conftest.py").is_file()


def rootdir_of(root: Path, test_file: str) -> str:
    """The repo-relative directory whose pytest configuration governs ``test_file``
    (``""`` for the repository root)."""
    parts = test_file.split("/")[:-1]
    while parts:
        if _declares_pytest(str(root.joinpath(*parts))):
            return "/".join(parts)
        parts = parts[:-1]
    return ""


def grouped(root: Path, ids: list[str]) -> dict[str, list[str]]:
    """rootdir -> ids relative to it, in the given order; the root group first."""
    groups: dict[str, list[str]] = {"": []}
    for test_id in ids:
        base = rootdir_of(root, file_of(test_id))
        inner = test_id[len(base) + 1:] if base else test_id
        groups.setdefault(base, []).append(inner)
    if not groups[""]:
        del groups[""]
    return groups


def command_for(root: Path, ids: list[str], base: str = "pytest") -> tuple[str, bool] | None:
    """(the command, whether ids were widened to whole files); None without ids."""
    unique, widened = capped(ids, MAX_IDS, file_of)
    if not unique:
        return None
    return " && ".join(group_commands(root, unique, base)), widened


def group_commands(root: Path, ids: list[str], base: str = "pytest") -> list[str]:
    """One command per pytest rootdir (``pytest ids`` or ``(cd DIR && pytest ids)``), the
    root group first; empty without ids."""
    from warpline.testmap.nodeids import is_test_id

    parts = []  # an id pytest would read as an option or an argument file is never passed
    safe = [i for i in dict.fromkeys(ids) if is_test_id(i)]
    for directory, inner in grouped(root, safe).items():
        line = base + " " + " ".join(shlex.quote(i) for i in inner)
        parts.append(line if not directory else f"(cd {shlex.quote(directory)} && {line})")
    return parts


def wanted(node_id: str, chosen: set[str]) -> bool:
    """Whether a test's node id is in a selection of node ids, classes, files or folders
    (a parametrized test matches its function's id)."""
    if node_id in chosen or node_id.split("[", 1)[0] in chosen:
        return True
    parts = node_id.split("::")
    if any("::".join(parts[:n]) in chosen for n in range(1, len(parts))):
        return True
    # A directory (a changed conftest.py selects the tests under it).
    folders = parts[0].split("/")[:-1]
    return "." in chosen or any("/".join(folders[:n]) in chosen
                                for n in range(1, len(folders) + 1))
