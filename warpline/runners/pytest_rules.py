"""Which files, classes and functions pytest collects, from the project's own configuration.

pytest reads its ini-options from the first of ``pytest.ini``, ``pyproject.toml``
(``[tool.pytest.ini_options]``), ``tox.ini`` (``[pytest]``) and ``setup.cfg``
(``[tool:pytest]``) that has them; this module reads the same files, at the repository
root, from a commit's tree (committed text is data: it is parsed, never run).

* ``python_files``: glob patterns; one without a ``/`` matches the file's name, one with
  a ``/`` matches the end of its path (as pytest's ``fnmatch_ex`` does).
* ``python_classes`` / ``python_functions``: name prefixes, or glob patterns when they
  contain a glob character.
* ``testpaths``: the directories a bare ``pytest`` collects from. A test file outside them
  is still a test when named explicitly, so it only narrows the defaults' ``tests/`` rule.

Without any configuration the defaults apply, plus warpline's long-standing extension:
any ``.py`` file under a ``tests/`` directory counts as a test file.
"""

from __future__ import annotations

import configparser
import shlex
import tomllib
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

DEFAULT_FILES = ("test_*.py", "*_test.py")
DEFAULT_CLASSES = ("Test",)
DEFAULT_FUNCTIONS = ("test",)
_GLOB = frozenset("*?[")
CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
MAX_CONFIG_BYTES = 1_000_000
_SYMLINK_MODE = 0o120000


@dataclass(frozen=True, slots=True)
class TestRules:
    """The pytest collection rules of a project: file, class and function patterns, test paths."""
    python_files: tuple[str, ...] = DEFAULT_FILES
    python_classes: tuple[str, ...] = DEFAULT_CLASSES
    python_functions: tuple[str, ...] = DEFAULT_FUNCTIONS
    testpaths: tuple[str, ...] = ()
    config_file: str | None = None  # where the options came from (None: defaults)

    __test__ = False  # not a pytest test class, despite its name

    def is_test_file(self, path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if not name.endswith(".py"):
            return False
        if self.matches_python_files(path):
            return True
        if self.python_files == DEFAULT_FILES:
            # The tests/ extension, restricted to testpaths when the project names them.
            directories = path.split("/")[:-1]
            if "tests" in directories and name != "conftest.py":
                return not self.testpaths or self.under_testpaths(path)
        return False

    def matches_python_files(self, path: str) -> bool:
        """pytest's own rule alone (what it collects as a test module), without the
        ``tests/`` extension."""
        name = path.rsplit("/", 1)[-1]
        for pattern in self.python_files:
            if "/" in pattern:
                if fnmatchcase(path, pattern) or fnmatchcase(path, f"*/{pattern}"):
                    return True
            elif fnmatchcase(name, pattern):
                return True
        return False

    def under_testpaths(self, path: str) -> bool:
        return any(path == p or path.startswith(f"{p.rstrip('/')}/") for p in self.testpaths)

    def collects_class(self, name: str) -> bool:
        return _matches(name, self.python_classes)

    def collects_function(self, name: str) -> bool:
        return _matches(name, self.python_functions)

    def to_json(self) -> dict[str, Any]:
        return {"python_files": list(self.python_files),
                "python_classes": list(self.python_classes),
                "python_functions": list(self.python_functions),
                "testpaths": list(self.testpaths), "config_file": self.config_file}

    @classmethod
    def from_json(cls, raw: Any) -> TestRules:
        if not isinstance(raw, dict):
            return cls()
        def strings(key: str, default: tuple[str, ...]) -> tuple[str, ...]:
            value = raw.get(key)
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return tuple(value)
            return default
        config = raw.get("config_file")
        return cls(strings("python_files", DEFAULT_FILES),
                   strings("python_classes", DEFAULT_CLASSES),
                   strings("python_functions", DEFAULT_FUNCTIONS),
                   strings("testpaths", ()), config if isinstance(config, str) else None)


DEFAULT_RULES = TestRules()


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    for pattern in patterns:
        if _GLOB & set(pattern):
            if fnmatchcase(name, pattern):
                return True
        elif name.startswith(pattern):
            return True
    return False


def _split(value: Any) -> tuple[str, ...] | None:
    """An ini value (whitespace/newline separated, shell-quoted) or a TOML list/string."""
    if isinstance(value, list):
        items = [v for v in value if isinstance(v, str)]
        return tuple(items) if items else None
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError:
            parts = value.split()
        return tuple(parts) if parts else None
    return None


def _ini_options(name: str, text: str) -> dict[str, Any] | None:
    """The pytest options a config file holds, or None when it holds none."""
    if name == "pyproject.toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
        tool = data.get("tool")
        pytest_table = tool.get("pytest") if isinstance(tool, dict) else None
        if not isinstance(pytest_table, dict):
            return None
        options = pytest_table.get("ini_options")
        # pytest 9 also reads [tool.pytest] itself (native TOML options).
        if not isinstance(options, dict):
            options = {k: v for k, v in pytest_table.items() if not isinstance(v, dict)}
        return options
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    section = "tool:pytest" if name == "setup.cfg" else "pytest"
    if not parser.has_section(section):
        return None
    return dict(parser.items(section))


def rules_from_texts(texts: dict[str, str]) -> TestRules:
    """``texts``: config file name -> its text (root-level files only)."""
    for name in CONFIG_FILES:
        text = texts.get(name)
        if text is None:
            continue
        options = _ini_options(name, text)
        if options is None:
            if name in ("pytest.ini", ".pytest.ini"):
                return TestRules(config_file=name)  # pytest.ini always wins, even empty
            continue
        return TestRules(
            python_files=_split(options.get("python_files")) or DEFAULT_FILES,
            python_classes=_split(options.get("python_classes")) or DEFAULT_CLASSES,
            python_functions=_split(options.get("python_functions")) or DEFAULT_FUNCTIONS,
            testpaths=tuple(p.strip("/").removeprefix("./")
                            for p in (_split(options.get("testpaths")) or ())),
            config_file=name)
    return DEFAULT_RULES


def rules_from_tree(tree: Any) -> TestRules:
    """The rules of a pygit2 tree's root-level configuration files."""
    texts: dict[str, str] = {}
    for name in CONFIG_FILES:
        try:
            entry = tree[name]
        except KeyError:
            continue
        data = getattr(entry, "data", None)
        if getattr(entry, "filemode", 0) == _SYMLINK_MODE:
            continue  # a link's target is not the project's configuration
        if not isinstance(data, bytes) or len(data) > MAX_CONFIG_BYTES:
            continue
        texts[name] = data.decode("utf-8", errors="replace")
    return rules_from_texts(texts)
