"""Which JavaScript test runner a package uses, and how its ``test`` script calls it.

A package (the repository root, or a workspace package: ``js_config.workspace_dirs``) uses
the runner its ``test`` script starts (``jest``, ``vitest``, ``mocha``, ``ava``, ``node
--test``; through ``npm run``/``yarn`` into other scripts, past wrappers such as ``c8``,
``nyc``, ``cross-env`` and ``npx``): the one it uses now, whatever else its manifests
still name. Without such a script: the runner whose config file it holds, else the
runner among its dev dependencies. A file belongs to the nearest package above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from warpline.runners.js_config import (
    config_object,
    package_json,
    script_commands,
    workspace_dirs,
)

__all__ = ["RUNNER_NAMES", "JsProject", "project_of", "projects"]

# The rows' names, in the order a package's config files and dependencies are tried.
RUNNER_NAMES = ("vitest", "jest", "mocha", "ava", "node-test")
_PACKAGES = {"vitest": "vitest", "jest": "jest", "mocha": "mocha", "ava": "ava"}
_CONFIGS: dict[str, tuple[str, ...]] = {
    "vitest": tuple(f"{stem}.config.{ext}" for stem in ("vitest", "vite")
                    for ext in ("ts", "mts", "cts", "js", "mjs", "cjs")),
    "jest": tuple(f"jest.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "json")),
    "mocha": (".mocharc.js", ".mocharc.cjs", ".mocharc.yaml", ".mocharc.yml",
              ".mocharc.jsonc", ".mocharc.json"),
    "ava": ("ava.config.js", "ava.config.mjs", "ava.config.cjs"),
    "node-test": (),
}
CONFIG_FILES = ("package.json", "pnpm-workspace.yaml",
                *(name for names in _CONFIGS.values() for name in names))
_WRAPPERS = frozenset({"npx", "c8", "nyc", "cross-env", "env", "dotenv", "exec", "pnpm",
                       "yarn", "bunx", "tsx", "ts-node", "--"})
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class Call:
    """How the package's script starts its runner: ``NAME=value`` words before it, the
    runner's own words (``vitest run``, ``node --test``), its options (flags and their
    values, in order) and its positional arguments (files, directories, globs)."""

    env: tuple[str, ...] = ()
    program: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    positional: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JsProject:
    """One package and the runner it uses (``runner`` None: none found)."""

    root: Path  # the repository root
    dir: str  # repo-relative package directory ("" for the root)
    runner: str | None
    call: Call = field(default_factory=Call)
    config: dict[str, Any] | None = None  # the runner's config object, when one is read
    config_file: str | None = None  # repo-relative

    @property
    def path(self) -> Path:
        return self.root / self.dir if self.dir else self.root

    def relative(self, repo_path: str) -> str:
        """A repo-relative path relative to the package directory."""
        return repo_path[len(self.dir) + 1:] if self.dir else repo_path


# Options taking a value, per runner (the rest are flags): the value is kept with it.
_VALUED = {
    "mocha": {"--require", "-r", "--reporter", "-R", "--timeout", "-t", "--ui", "-u",
              "--config", "--extension", "--file", "--ignore", "--exclude", "--spec",
              "--slow", "-s", "--reporter-option", "--reporter-options", "-O", "--package",
              "--grep", "-g", "--fgrep", "-f", "--retries", "--jobs", "-j", "--loader",
              "--import", "--node-option", "-n"},
    "jest": {"--config", "-c", "--testNamePattern", "-t", "--maxWorkers", "-w",
             "--reporters", "--testPathPattern", "--testPathIgnorePatterns", "--rootDir",
             "--roots", "--setupFiles", "--testTimeout", "--coverageProvider",
             "--coverageDirectory", "--selectProjects", "--shard", "--outputFile"},
    "vitest": {"--config", "-c", "--root", "-r", "--dir", "--testNamePattern", "-t",
               "--reporter", "--project", "--pool", "--environment", "--shard",
               "--outputFile", "--mode", "--maxWorkers", "--minWorkers", "--exclude"},
    "ava": {"--match", "-m", "--timeout", "-T", "--concurrency", "-c", "--config",
            "--node-arguments", "--tap"},
    "node-test": {"--import", "--require", "-r", "--loader", "--experimental-loader",
                  "--test-reporter", "--test-reporter-destination",
                  "--test-name-pattern", "--test-concurrency", "--test-timeout",
                  "--test-skip-pattern", "--conditions", "-C"},
}


def _runner_of(words: list[str]) -> tuple[str, Call] | None:
    """The runner a script command starts, and how."""
    env: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        base = word.rsplit("/", 1)[-1]
        if _ENV.match(word):
            env.append(word)
        elif base == "node" and "--test" in words[index + 1:]:
            rest = words[index + 1:]
            return "node-test", _split("node-test", env, ("node",), rest)
        elif base in _PACKAGES:
            program = [base]
            rest = words[index + 1:]
            if base == "vitest" and rest[:1] and rest[0] in ("run", "watch", "dev"):
                program.append(rest[0])
                rest = rest[1:]
            return base, _split(base, env, tuple(program), rest)
        elif base not in _WRAPPERS and not word.startswith("-") and index > 0 \
                and words[index - 1] in ("--exclude", "--reporter", "--temp-dir",
                                         "--report-dir", "-r", "--include"):
            pass  # a wrapper's option value
        elif base not in _WRAPPERS and not word.startswith("-"):
            return None
        index += 1
    return None


def _split(runner: str, env: list[str], program: tuple[str, ...], rest: list[str]) -> Call:
    valued = _VALUED[runner]
    options: list[str] = []
    positional: list[str] = []
    index = 0
    while index < len(rest):
        word = rest[index]
        if word.startswith("-"):
            options.append(word)
            if word in valued and "=" not in word and index + 1 < len(rest):
                options.append(rest[index + 1])
                index += 1
        else:
            positional.append(word)
        index += 1
    return Call(tuple(env), program, tuple(options), tuple(positional))


def _config_of(directory: Path, runner: str, call: Call, package: dict[str, Any]
               ) -> tuple[dict[str, Any] | None, str | None]:
    named = _option(call.options, ("--config", "-c")) if runner != "ava" else None
    candidates = (named,) if named else _CONFIGS[runner]
    for name in candidates:
        if not name:
            continue
        found = config_object(directory / name)
        if found is not None:
            if runner == "vitest" and name.startswith("vite.") and "test" not in found:
                continue
            return found, name
    key = {"jest": "jest", "mocha": "mocha", "ava": "ava"}.get(runner)
    embedded = package.get(key) if key else None
    return (embedded, "package.json") if isinstance(embedded, dict) else (None, None)


def _option(options: tuple[str, ...], names: tuple[str, ...]) -> str | None:
    for index, word in enumerate(options):
        for name in names:
            if word == name and index + 1 < len(options):
                return options[index + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def _detect_package(root: Path, directory: Path) -> JsProject:
    rel = "" if directory == root else directory.relative_to(root).as_posix()
    package = package_json(directory) or {}
    runner: str | None = None
    call = Call()
    for words in script_commands(package):
        found = _runner_of(words)
        if found is not None:
            runner, call = found
            break
    if runner is None:
        runner = next((name for name in RUNNER_NAMES if any(
            (directory / c).is_file() for c in _CONFIGS[name])
            or (name in ("jest", "mocha", "ava") and isinstance(package.get(name), dict))),
            None)
    if runner is None:
        deps: dict[str, Any] = {}
        for key in ("devDependencies", "dependencies"):
            if isinstance(package.get(key), dict):
                deps.update(package[key])
        runner = next((name for name in RUNNER_NAMES if _PACKAGES.get(name) in deps), None)
    if runner is None:
        return JsProject(root, rel, None)
    config, config_file = _config_of(directory, runner, call, package)
    if config_file is not None and rel:
        config_file = f"{rel}/{config_file}"
    return JsProject(root, rel, runner, call, config, config_file)


def projects(root: Path) -> list[JsProject]:
    """Every package of the repository (the root first) with the runner it uses."""
    return list(_projects(str(root), _stamp(root)))


def _stamp(root: Path) -> tuple[float, ...]:
    out: list[float] = []
    for name in CONFIG_FILES:
        try:
            out.append((root / name).stat().st_mtime)
        except OSError:
            out.append(0.0)
    return tuple(out)


@lru_cache(maxsize=32)
def _projects(root_text: str, stamp: tuple[float, ...]) -> tuple[JsProject, ...]:
    root = Path(root_text)
    if package_json(root) is None and not (root / "pnpm-workspace.yaml").is_file():
        return ()
    return tuple(_detect_package(root, d) for d in workspace_dirs(root))


def project_of(root: Path, repo_path: str) -> JsProject | None:
    """The package a repo-relative file belongs to: the deepest whose directory holds it."""
    best: JsProject | None = None
    for project in projects(root):
        if not project.dir or repo_path.startswith(project.dir + "/"):
            if best is None or len(project.dir) > len(best.dir):
                best = project
    return best
