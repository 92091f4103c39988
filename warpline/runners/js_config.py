"""A JavaScript project's manifests and runner configuration, read as data (never run).

``package.json`` (JSON), a runner's config file written in JavaScript or TypeScript
(``jest.config.js``, ``vitest.config.ts``, ``ava.config.mjs``, ``.mocharc.cjs``: the
object literal it exports, through tree-sitter; a value that is no literal is ``UNKNOWN``),
``.mocharc.json``/``.jsonc``/``.yml`` and ``pnpm-workspace.yaml`` (their few keys). Files
are bounded in size, symlinks refused, anything unreadable is absent.
"""

from __future__ import annotations

import json
import re
import shlex
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["UNKNOWN", "config_object", "package_json", "read_text", "script_commands",
           "strings", "workspace_dirs"]

MAX_BYTES = 1 << 20
UNKNOWN = object()  # a config value that is no literal (computed): the runner's, not ours
_MAX_PACKAGES = 200
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})
_RUNS_SCRIPT = re.compile(r"^(?:npm|pnpm|yarn|bun)$")


def read_text(path: Path) -> str | None:
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _stamp(path: Path) -> tuple[str, float, int]:
    try:
        stat = path.stat()
        return str(path), stat.st_mtime, stat.st_size
    except OSError:
        return str(path), 0.0, -1


def package_json(directory: Path) -> dict[str, Any] | None:
    """The ``package.json`` of ``directory`` as a dict, None when absent or unreadable."""
    return _package_json(_stamp(directory / "package.json"))


@lru_cache(maxsize=256)
def _package_json(stamp: tuple[str, float, int]) -> dict[str, Any] | None:
    text = read_text(Path(stamp[0])) if stamp[2] >= 0 else None
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def strings(value: Any) -> list[str] | None:
    """A string or a list of strings as a list; None for anything else."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def script_commands(package: dict[str, Any], name: str = "test") -> list[list[str]]:
    """The commands the package's script ``name`` runs, as argument lists, following
    ``npm run x`` / ``yarn x`` / ``pnpm x`` into the package's other scripts (once each)."""
    scripts = package.get("scripts")
    if not isinstance(scripts, dict):
        return []
    out: list[list[str]] = []
    seen: set[str] = set()

    def visit(script: str) -> None:
        if script in seen or not isinstance(scripts.get(script), str):
            return
        seen.add(script)
        try:
            lexer = shlex.shlex(scripts[script], posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words = list(lexer)
        except ValueError:
            return
        command: list[str] = []
        for word in [*words, ";"]:
            if word in _SEPARATORS or set(word) <= set("&|;"):
                if command:
                    out.append(command)
                    following = _script_named(command, scripts)
                    if following is not None:
                        visit(following)
                command = []
            else:
                command.append(word)

    visit(name)
    return out


def _script_named(command: list[str], scripts: dict[str, Any]) -> str | None:
    words = [w for w in command if "=" not in w or w.startswith("-")]
    if not words or not _RUNS_SCRIPT.match(words[0]):
        return None
    rest = [w for w in words[1:] if not w.startswith("-")]
    if rest[:1] == ["run"] or rest[:1] == ["run-script"]:
        rest = rest[1:]
    return rest[0] if rest and rest[0] in scripts else None


def workspace_dirs(root: Path) -> list[Path]:
    """The root and the packages its workspaces declare (``package.json``'s
    ``workspaces``, ``pnpm-workspace.yaml``'s ``packages``), each holding a
    ``package.json``; bounded, never a walk of the whole tree."""
    globs: list[str] = []
    top = package_json(root)
    if top is not None:
        declared = top.get("workspaces")
        if isinstance(declared, dict):
            declared = declared.get("packages")
        globs.extend(strings(declared) or [])
    pnpm = read_text(root / "pnpm-workspace.yaml")
    if pnpm is not None:
        globs.extend(_yaml_list(pnpm, "packages"))
    dirs = [root]
    for pattern in globs:
        if pattern.startswith("!") or ".." in pattern.split("/"):
            continue
        for found in _expand(root, pattern.strip("/")):
            if found not in dirs and (found / "package.json").is_file():
                dirs.append(found)
            if len(dirs) > _MAX_PACKAGES:
                return dirs
    return dirs


def _expand(root: Path, pattern: str) -> list[Path]:
    from warpline.runners.js_globs import compile_glob

    parts = pattern.split("/")
    if "**" in parts:  # packages/** : two levels at most
        parts = [*parts[:parts.index("**")], "*"]
    current = [root]
    for part in parts:
        step: list[Path] = []
        if any(c in part for c in "*?[{"):
            regex = compile_glob(part)
            for base in current:
                try:
                    children = sorted(base.iterdir())
                except OSError:
                    continue
                step.extend(c for c in children if c.is_dir() and not c.is_symlink()
                            and c.name != "node_modules" and regex.match(c.name))
        else:
            step = [b / part for b in current if (b / part).is_dir()]
        current = step[:_MAX_PACKAGES]
    return current


def _yaml_list(text: str, key: str) -> list[str]:
    """A top-level ``key:`` list of a small YAML file (``- item`` lines, or ``[a, b]``)."""
    out: list[str] = []
    inside = False
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not raw[:1].isspace() and not line.startswith("-"):
            inside = line.split(":", 1)[0].strip().strip("'\"") == key
            rest = line.split(":", 1)[1].strip() if ":" in line else ""
            if inside and rest.startswith("["):
                out.extend(v.strip().strip("'\"") for v in rest.strip("[]").split(",")
                           if v.strip())
                inside = False
            elif inside and rest:
                out.append(rest.strip("'\""))
                inside = False
            continue
        if inside and line.lstrip().startswith("-"):
            out.append(line.lstrip()[1:].strip().strip("'\""))
    return out


def yaml_keys(text: str) -> dict[str, Any]:
    """The top-level keys of a small YAML file: a scalar, or a list of scalars."""
    out: dict[str, Any] = {}
    for raw in text.splitlines():
        if raw[:1].isspace() or raw.startswith("-") or ":" not in raw \
                or raw.lstrip().startswith("#"):
            continue
        key, rest = raw.split(":", 1)
        key = key.strip().strip("'\"")
        rest = rest.split(" #", 1)[0].strip()
        if not rest:
            out[key] = _yaml_list(text, key)
        elif rest.startswith("["):
            out[key] = _yaml_list(text, key)
        else:
            value: Any = rest.strip("'\"")
            out[key] = {"true": True, "false": False}.get(str(value), value)
    return out


def config_object(path: Path) -> dict[str, Any] | None:
    """The object a config file exports: JSON (``.json``/``.jsonc``), small YAML
    (``.yml``/``.yaml``) or JavaScript/TypeScript (``module.exports = {…}``, ``export
    default {…}``, ``export default defineConfig({…})``); None when unreadable."""
    return _config_object(_stamp(path))


@lru_cache(maxsize=256)
def _config_object(stamp: tuple[str, float, int]) -> dict[str, Any] | None:
    path = Path(stamp[0])
    text = read_text(path) if stamp[2] >= 0 else None
    if text is None:
        return None
    suffix = path.suffix
    if suffix in (".json", ".jsonc"):
        try:
            data = json.loads(_strip_json_comments(text))
        except ValueError:
            return None
        return data if isinstance(data, dict) else None
    if suffix in (".yml", ".yaml"):
        return yaml_keys(text)
    from warpline.runners.js_literal import exported_object

    return exported_object(text.encode(), typescript=suffix in (".ts", ".mts", ".cts"))


def _strip_json_comments(text: str) -> str:
    return re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "",
                  text, flags=re.S)
