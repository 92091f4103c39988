"""``#[cfg(...)]`` evaluated as cargo's build of the suite on this machine sees it.

What is known: the host (``unix``/``windows``, ``target_os``, ``target_family``,
``target_pointer_width``, ``target_arch``, ``target_endian``), ``test`` and
``debug_assertions`` (a test build), and the package's features: its ``default`` ones,
followed through ``[features]`` (every feature when the suite runs with
``--all-features``). Anything else (``target_env``, ``panic``, a custom ``--cfg``) is
unknown and counts as true: an item is left out only when its ``cfg`` is known false.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from typing import Any

__all__ = ["active", "enabled_features"]

_TOKEN = re.compile(r'\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(?:=\s*"([^"]*)")?|([(),]))')
_OS = {"linux": "linux", "darwin": "macos", "win32": "windows", "freebsd": "freebsd"}


def _host() -> dict[str, str]:
    system = next((v for k, v in _OS.items() if sys.platform.startswith(k)), sys.platform)
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return {"target_os": system, "target_family": "windows" if os.name == "nt" else "unix",
            "target_pointer_width": "64" if sys.maxsize > 2**32 else "32",
            "target_arch": arch, "target_endian": sys.byteorder}


_FLAGS = {"unix": os.name != "nt", "windows": os.name == "nt", "test": True,
          "debug_assertions": True, "miri": False, "doc": False, "doctest": False}


def enabled_features(manifest: dict[str, Any], all_features: bool) -> set[str] | None:
    """The features a plain ``cargo test`` enables (None: every one)."""
    if all_features:
        return None
    table = manifest.get("features")
    table = table if isinstance(table, dict) else {}
    out: set[str] = set()
    stack = ["default"]
    while stack:
        name = stack.pop()
        if name in out:
            continue
        out.add(name)
        for item in table.get(name, []) if isinstance(table.get(name), list) else []:
            item = str(item)
            if "/" not in item and not item.startswith("dep:") and item in table:
                stack.append(item)
            elif item.startswith("dep:"):
                out.add(item[4:])
    return out


def _value(tokens: list[tuple[str, str, str]], at: int,
           features: set[str] | frozenset[str] | None,
           host: dict[str, str]) -> tuple[bool, int]:
    name, value, punct = tokens[at]
    if punct:
        return True, at + 1
    if name in ("all", "any", "not") and at + 1 < len(tokens) and tokens[at + 1][2] == "(":
        at += 2
        values: list[bool] = []
        while at < len(tokens) and tokens[at][2] != ")":
            if tokens[at][2] == ",":
                at += 1
                continue
            found, at = _value(tokens, at, features, host)
            values.append(found)
        at += 1
        if name == "not":
            return not (values[0] if values else True), at
        return (all(values) if name == "all" else any(values)), at
    if value:
        if name == "feature":
            return features is None or value in features, at + 1
        known = host.get(name)
        return (known == value) if known is not None else True, at + 1
    return _FLAGS.get(name, True), at + 1


def true(predicate: str, features: set[str] | frozenset[str] | None) -> bool:
    tokens = [(m.group(1) or "", m.group(2) or "", m.group(3) or "")
              for m in _TOKEN.finditer(predicate) if m.group(0).strip()]
    if not tokens:
        return True
    return _value(tokens, 0, features, _host())[0]


def active(attrs: list[str], features: set[str] | frozenset[str] | None) -> bool:
    """Whether every ``cfg(...)`` among an item's attributes holds."""
    return all(true(a[4:-1], features) for a in attrs
               if a.startswith("cfg(") and a.endswith(")"))
