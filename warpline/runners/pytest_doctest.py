"""Whether a project's pytest runs doctests, read from its files as data (never run).

* docstrings (``runs_doctests``): ``--doctest-modules`` in ``addopts`` or a
  ``doctest_optionflags`` (pyproject.toml, pytest.ini, tox.ini, setup.cfg), or a
  ``doctest`` import in a ``conftest.py`` or in a test folder's module named for doctests;
* text files (``reads_docs``): pytest collects ``test*.txt`` as doctests by default, and
  whatever ``--doctest-glob`` patterns ``addopts`` adds.

Files are read size-capped, never through a symlink.
"""

from __future__ import annotations

import configparser
import re
import shlex
import tomllib
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

_MAX_CONFIG = 1 << 20
_MAX_TEST_FILES = 400
_INI = (("pytest.ini", "pytest"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))
_TEST_DIRS = ("tests", "test", "testing")
_DOCTEST_IMPORT = re.compile(rb"^[ \t]*(?:import[ \t]+doctest\b|from[ \t]+doctest[ \t]+import)",
                             re.MULTILINE)
DEFAULT_GLOB = "test*.txt"


def runs_doctests(root: Path) -> bool:
    """Whether the repository's pytest runs the docstrings of its code."""
    if _says_doctests(_pyproject(root / "pyproject.toml")):
        return True
    for name, section in _INI:
        if _says_doctests(_ini(root / name, section)):
            return True
    return _imports_doctest(root)


def reads_docs(root: Path, path: str) -> bool:
    """Whether the repository's pytest collects the text file ``path`` as a doctest."""
    name = path.rsplit("/", 1)[-1]
    globs = [DEFAULT_GLOB, *_doctest_globs(_pyproject(root / "pyproject.toml"))]
    for file_name, section in _INI:
        globs += _doctest_globs(_ini(root / file_name, section))
    return any(fnmatchcase(name, g) or fnmatchcase(path, g) for g in globs)


def _addopts(options: Any) -> list[str]:
    if not isinstance(options, dict):
        return []
    addopts = options.get("addopts")
    if isinstance(addopts, list):
        return [str(a) for a in addopts]
    if isinstance(addopts, str):
        try:
            return shlex.split(addopts)
        except ValueError:
            return addopts.split()
    return []


def _doctest_globs(options: Any) -> list[str]:
    args = _addopts(options)
    out = []
    for index, arg in enumerate(args):
        if arg.startswith("--doctest-glob="):
            out.append(arg.split("=", 1)[1])
        elif arg == "--doctest-glob" and index + 1 < len(args):
            out.append(args[index + 1])
    return out


def _says_doctests(options: Any) -> bool:
    if not isinstance(options, dict):
        return False
    return "--doctest-modules" in _addopts(options) or "doctest_optionflags" in options


def _read(path: Path) -> bytes | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_CONFIG:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _pyproject(path: Path) -> Any:
    """The ``[tool.pytest.ini_options]`` table, or None."""
    data = _read(path)
    if data is None:
        return None
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    tool = table.get("tool")
    pytest = tool.get("pytest") if isinstance(tool, dict) else None
    return pytest.get("ini_options") if isinstance(pytest, dict) else None


def _ini(path: Path, section: str) -> dict[str, str] | None:
    """The pytest section of an ini file, or None."""
    data = _read(path)
    if data is None:
        return None
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(data.decode("utf-8", "replace"))
    except configparser.Error:
        return None
    if not parser.has_section(section):
        return None
    return dict(parser.items(section))


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
