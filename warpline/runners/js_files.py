"""Which files a package's runner runs as test files, by its own configuration and
defaults (paths relative to the package directory):

* Jest: ``roots`` (default the package), ``testMatch`` (default ``**/__tests__/**/*.[jt]s?(x)``
  and ``**/?(*.)+(spec|test).[jt]s?(x)``) or ``testRegex``, ``testPathIgnorePatterns``
  (default ``/node_modules/``), ``moduleFileExtensions``;
* Vitest: ``test.include`` (default ``**/*.{test,spec}.?(c|m)[jt]s?(x)``), ``test.exclude``
  (default node_modules, dist, and tools' config files), ``test.dir``;
* Mocha: the script's spec arguments, else ``spec`` of ``.mocharc.*``/``package.json``,
  else ``./test``; a directory holds its files (``--recursive``: and below) with the
  ``--extension``s (default js, cjs, mjs);
* AVA: ``files`` (``!`` negations; default ``test.js``, ``test-*.js``, ``*.spec.js``,
  ``*.test.js``, ``test/**``, ``tests/**``, ``__tests__/**``), the ``extensions`` it is
  given, never helpers (``_``-prefixed, ``helper(s)``/``fixture(s)`` directories);
* ``node --test``: its file arguments, else Node's defaults (``**/*.test.?(c|m)js``,
  ``*-test``, ``*_test``, ``test-*``, ``test.?(c|m)js``, ``**/test/**/*.?(c|m)js``).

A value the config computes (not a literal) leaves the runner's default in place.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from warpline.runners.js_config import UNKNOWN, strings
from warpline.runners.js_detect import JsProject
from warpline.runners.js_globs import compile_glob, matches_any

__all__ = ["is_test_file", "test_files"]

_SKIP_DIRS = frozenset({"node_modules", ".git", ".weft", ".hg", ".svn"})
_MAX_FILES = 50_000
_JEST_MATCH = ("**/__tests__/**/*.?([mc])[jt]s?(x)", "**/?(*.)+(spec|test).?([mc])[jt]s?(x)")
_JEST_EXTENSIONS = ("js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "json", "node")
_VITEST_INCLUDE = ("**/*.{test,spec}.?(c|m)[jt]s?(x)",)
_VITEST_EXCLUDE = ("**/node_modules/**", "**/dist/**", "**/cypress/**",
                   "**/.{idea,git,cache,output,temp}/**",
                   "**/{karma,rollup,webpack,vite,vitest,jest,ava,babel,nyc,cypress,tsup,"
                   "build,eslint,prettier}.config.*")
_AVA_FILES = ("test.{ext}", "src/test.{ext}", "source/test.{ext}", "**/test-*.{ext}",
              "**/*.spec.{ext}", "**/*.test.{ext}", "**/test/**/*.{ext}",
              "**/tests/**/*.{ext}", "**/__tests__/**/*.{ext}")
_AVA_HELPERS = ("**/__tests__/**/__{helper,fixture}?(s)__/**",
                "**/{test,tests}/**/{helper,fixture}?(s)/**")
_NODE_FILES = ("**/*.test.?(c|m)js", "**/*-test.?(c|m)js", "**/*_test.?(c|m)js",
               "**/test-*.?(c|m)js", "**/test.?(c|m)js", "**/test/**/*.?(c|m)js")


def _config(project: JsProject) -> dict[str, Any]:
    config = project.config or {}
    if project.runner == "vitest":
        inner = config.get("test")
        return inner if isinstance(inner, dict) else {}
    return config


def _literal(value: Any) -> list[str] | None:
    return None if value is UNKNOWN else strings(value)


def is_test_file(project: JsProject, path: str) -> bool:
    """Whether the runner of ``project`` runs ``path`` (relative to the package) as a test
    file."""
    runner = project.runner
    config = _config(project)
    name = path.rsplit("/", 1)[-1]
    if runner == "jest":
        return _jest(config, path)
    if runner == "vitest":
        base = (_literal(config.get("dir")) or [""])[0].strip("./")
        if base and not path.startswith(base.rstrip("/") + "/"):
            return False
        inner = path[len(base) + 1:] if base else path
        include = _literal(config.get("include")) or list(_VITEST_INCLUDE)
        exclude = [*_VITEST_EXCLUDE, *(_literal(config.get("exclude")) or [])]
        return matches_any(inner, include) and not matches_any(inner, exclude)
    if runner == "mocha":
        return _mocha(project, config, path)
    if runner == "ava":
        if name.startswith("_") or matches_any(path, _AVA_HELPERS):
            return False
        extensions = _ava_extensions(config)
        if name.rsplit(".", 1)[-1] not in extensions:
            return False
        files = _literal(config.get("files"))
        if files is None:
            return any(matches_any(path, [g.format(ext=e) for g in _AVA_FILES])
                       for e in extensions)
        positive = [f for f in files if not f.startswith("!")]
        negative = [f[1:] for f in files if f.startswith("!")]
        return matches_any(path, positive) and not matches_any(path, negative)
    if runner == "node-test":
        given = [p for p in project.call.positional]
        if given:
            return any(path == g.strip("./") or matches_any(path, [g])
                       or path.startswith(g.strip("/") + "/") for g in given)
        return matches_any(path, _NODE_FILES) and "node_modules/" not in path
    return False


def _jest(config: dict[str, Any], path: str) -> bool:
    roots = [r.replace("<rootDir>", "").strip("/") for r in
             (_literal(config.get("roots")) or ["<rootDir>"])]
    if not any(not r or path.startswith(r + "/") for r in roots):
        return False
    extensions = _literal(config.get("moduleFileExtensions")) or list(_JEST_EXTENSIONS)
    if path.rsplit(".", 1)[-1] not in extensions:
        return False
    absolute = "/" + path
    ignore = _literal(config.get("testPathIgnorePatterns")) or ["/node_modules/"]
    for pattern in ignore:
        try:
            if re.search(pattern.replace("<rootDir>", ""), absolute):
                return False
        except re.error:
            continue
    regex = _literal(config.get("testRegex"))
    if regex:
        try:
            return any(re.search(r, absolute) for r in regex)
        except re.error:
            return False
    return matches_any(path, _literal(config.get("testMatch")) or list(_JEST_MATCH))


def _mocha_option(project: JsProject, config: dict[str, Any], names: tuple[str, ...]
                  ) -> list[str]:
    out: list[str] = []
    options = project.call.options
    for index, word in enumerate(options):
        for name in names:
            if word == name and index + 1 < len(options):
                out.append(options[index + 1])
            elif word.startswith(name + "="):
                out.append(word.split("=", 1)[1])
    for name in names:
        key = name.lstrip("-")
        out.extend(_literal(config.get(key)) or [])
    return out


def mocha_specs(project: JsProject) -> tuple[list[str], bool]:
    """The spec arguments mocha resolves (script's, else config's, else ``./test``), and
    whether they came from the config (mocha merges those with the command line's)."""
    config = _config(project)
    if project.call.positional:
        return list(project.call.positional), False
    spec = _literal(config.get("spec"))
    if spec:
        return spec, True
    return ["./test"], False


def _mocha(project: JsProject, config: dict[str, Any], path: str) -> bool:
    extensions = [e.lstrip(".") for e in _mocha_option(project, config, ("--extension",))] \
        or ["js", "cjs", "mjs"]
    recursive = "--recursive" in project.call.options or config.get("recursive") is True
    specs, from_config = mocha_specs(project)
    if from_config and project.call.positional:
        specs = [*specs, *project.call.positional]
    directory, _, name = path.rpartition("/")
    for spec in specs:
        spec = spec[2:] if spec.startswith("./") else spec
        spec = spec.rstrip("/")
        if any(c in spec for c in "*?[{"):
            if compile_glob(spec).match(path):
                return True
            continue
        if path == spec:
            return True
        if name.rsplit(".", 1)[-1] not in extensions:
            continue
        if directory == spec or (recursive and path.startswith(spec + "/")):
            return True
    return False


def _ava_extensions(config: dict[str, Any]) -> list[str]:
    given = config.get("extensions")
    if isinstance(given, dict):
        return [str(k) for k in given]
    return _literal(given) or ["js", "cjs", "mjs"]


def test_files(project: JsProject) -> list[str]:
    """The package's test files (repo-relative, sorted) in the work tree: a walk of the
    package outside ``node_modules`` and hidden directories, bounded."""
    base = project.path
    out: list[str] = []
    for current, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".")
                         and not (Path(current) / d).is_symlink())
        rel_dir = Path(current).relative_to(base).as_posix()
        for name in files:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if is_test_file(project, rel):
                out.append(f"{project.dir}/{rel}" if project.dir else rel)
            if len(out) > _MAX_FILES:
                return sorted(out)
    return sorted(out)
