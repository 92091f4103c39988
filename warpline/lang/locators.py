"""Locators in loomweave's id dialect (DESIGN §3), built from repo-relative paths.

    core:file:<repo-relative path, '/' separators>
    python:module:<dotted>
    python:class:<dotted>.<__qualname__>
    python:function:<dotted>.<__qualname__>

``<dotted>`` comes from the path: drop ONE leading ``src/`` component, drop ``.py``, an
``__init__.py`` names its package, join the components with dots. Only ``.py`` files are
Python entities (not ``.pyi``/``.pyw``). A path that names no module (``__init__.py`` or
``src/__init__.py`` at the root) has no dotted name: its file is a plain file.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "PythonKind",
    "class_locator",
    "dotted_module",
    "entity_locator",
    "file_locator",
    "function_locator",
    "is_python_path",
    "module_locator",
    "normalize_path",
]

PythonKind = Literal["module", "class", "function"]

_FILE = "core:file:"
_PREFIX: dict[str, str] = {
    "module": "python:module:",
    "class": "python:class:",
    "function": "python:function:",
}


def normalize_path(path: str) -> str:
    """A repo-relative path (git's, '/' separators) with no leading './' or '/'. A
    backslash is a character of the name, never a separator: ``a\\b.py`` and ``a/b.py``
    are two files (a path a person types is read in ``service/shared/resolve.py``)."""
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def is_python_path(path: str) -> bool:
    """True for ``.py`` files (the only files whose definitions are entities)."""
    return path.endswith(".py")


def dotted_module(path: str) -> str | None:
    """The dotted module name of a repo-relative ``.py`` path, or None.

    >>> dotted_module("src/demo/auth.py"), dotted_module("pkg/__init__.py")
    ('demo.auth', 'pkg')
    """
    path = normalize_path(path)
    if not is_python_path(path):
        return None
    parts = path[:-3].split("/")
    # One leading src/ only when it is a directory: a top-level src.py is module "src".
    if len(parts) > 1 and parts[0] == "src":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or any(not part for part in parts):
        return None
    return ".".join(parts)


def file_locator(path: str) -> str:
    return _FILE + normalize_path(path)


def module_locator(dotted: str) -> str:
    return _PREFIX["module"] + dotted


def class_locator(dotted: str, qualname: str) -> str:
    return f"{_PREFIX['class']}{dotted}.{qualname}"


def function_locator(dotted: str, qualname: str) -> str:
    return f"{_PREFIX['function']}{dotted}.{qualname}"


def entity_locator(kind: str, dotted: str, qualname: str) -> str:
    """The locator of a Python entity; ``qualname`` is ignored (and empty) for a module."""
    if kind == "module":
        return _PREFIX["module"] + dotted
    return f"{_PREFIX[kind]}{dotted}.{qualname}"
