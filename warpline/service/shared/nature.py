"""What a change means on the wire: an entity event's ``nature`` from the facts the walker
recorded (``warpline.git.nature``) and the doctest rule, read from the repository at answer
time (docs/lineage.md "What a change means").

``nature`` is one of ``cosmetic`` (the definition's code is unchanged apart from comments,
layout and docstrings), ``signature`` (what callers write against changed: its name,
parameters, return type, generics), ``behavioural`` (any other change, and every added or
removed definition) or null: a file event (bytes, not a definition), or an event whose
facts were never recorded (written before this reading, a merge, a version no reader could
parse) — unknown, never guessed.

A docstring-only change is ``behavioural`` in a project that runs doctests: pytest's
``--doctest-modules`` in ``addopts`` or a ``doctest_optionflags`` (pyproject.toml,
pytest.ini, tox.ini, setup.cfg), or a ``doctest`` import in a ``conftest.py`` or in a
test folder's module named for doctests. Those files are read as data (size-capped, symlinks not
followed); nothing of the repository runs. Only the standard library is imported here:
churn's fast path uses it.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["NATURES", "combined", "nature_of", "runs_doctests", "unknown_note"]

NATURES = ("cosmetic", "behavioural", "signature")

_MAX_CONFIG = 1 << 20
_MAX_TEST_FILES = 400
_INI = (("pytest.ini", "pytest"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))
_TEST_DIRS = ("tests", "test", "testing")
_DOCTEST_IMPORT = re.compile(rb"^[ \t]*(?:import[ \t]+doctest\b|from[ \t]+doctest[ \t]+import)",
                             re.MULTILINE)


def nature_of(kind: str, change_kind: str, code_same: Any, docs_changed: Any,
              signature_changed: Any, doctests: bool) -> str | None:
    """The wire's ``nature`` of one event (the three facts as stored: 0, 1 or NULL)."""
    if kind == "file":
        return None
    if change_kind in ("added", "removed"):
        return "behavioural"
    if code_same is None or signature_changed is None:
        return None
    if signature_changed:
        return "signature"
    if code_same and not (docs_changed and doctests):
        return "cosmetic"
    return "behavioural"


def combined(natures: list[str | None]) -> str | None:
    """One entity's nature over several events (a range): signature over behavioural over
    unknown over cosmetic (cosmetic only when every event is)."""
    for nature in ("signature", "behavioural"):
        if nature in natures:
            return nature
    if not natures or None in natures:
        return None
    return "cosmetic"


def unknown_note(count: int) -> list[str]:
    if not count:
        return []
    return [f"{count} changed definitions here have an unknown nature (null): their events "
            "were recorded before warpline read what a change means (or in a merge, or a "
            "version no reader could parse). They count as changes. Re-recording the "
            "history (a fresh store: `warpline backfill` after moving "
            ".weft/warpline/warpline.db aside) fills in the events recorded before; a "
            "merge's and an unreadable version's stay unknown."]


def runs_doctests(root: Path) -> bool:
    """Whether the repository's pytest runs doctests (read as data, never run)."""
    if _pyproject(root / "pyproject.toml"):
        return True
    for name, section in _INI:
        if _ini(root / name, section):
            return True
    return _imports_doctest(root)


def _read(path: Path) -> bytes | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_CONFIG:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _says_doctests(options: Any) -> bool:
    if not isinstance(options, dict):
        return False
    addopts = options.get("addopts")
    if isinstance(addopts, list):
        addopts = " ".join(str(a) for a in addopts)
    return ((isinstance(addopts, str) and "--doctest-modules" in addopts.split())
            or "doctest_optionflags" in options)


def _pyproject(path: Path) -> bool:
    data = _read(path)
    if data is None:
        return False
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    tool = table.get("tool")
    pytest = tool.get("pytest") if isinstance(tool, dict) else None
    return isinstance(pytest, dict) and _says_doctests(pytest.get("ini_options"))


def _ini(path: Path, section: str) -> bool:
    data = _read(path)
    if data is None:
        return False
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(data.decode("utf-8", "replace"))
    except configparser.Error:
        return False
    if not parser.has_section(section):
        return False
    return _says_doctests(dict(parser.items(section)))


def _imports_doctest(root: Path) -> bool:
    """A ``doctest`` import in a ``conftest.py`` (the root's, the test folders') or in a
    test folder's module named for doctests (``tests/test_doctests.py``)."""
    candidates = [root / "conftest.py"]
    for name in _TEST_DIRS:
        folder = root / name
        if folder.is_dir() and not folder.is_symlink():
            try:  # rglob does not follow symlinked folders
                candidates.extend(sorted(folder.rglob("conftest.py"))[:_MAX_TEST_FILES])
                candidates.extend(sorted(folder.glob("*doctest*.py")))
            except OSError:
                continue
    for path in candidates[: _MAX_TEST_FILES + 1]:
        data = _read(path)
        if data is not None and b"doctest" in data and _DOCTEST_IMPORT.search(data):
            return True
    return False
