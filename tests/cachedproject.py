"""A small project with a memoized helper: ``split`` is ``lru_cache``d, called by three
functions, one of them (``root``) cached too. Every test asks about the same name, so the
helper's body runs in the first test only; later tests use its cached result, and so does
``describe`` through ``root``'s cache. A test map records none of them against ``split``.

``make_cached_project(path, cached=False)`` writes the same project without the cache
decorators (every test then runs the helper's body), for the control.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.gitfixture import FixtureRepo

PATHS = '''\
from functools import cache, lru_cache


def clean(name):
    return name.strip()


@lru_cache(maxsize=None)
def split(name):
    return tuple(clean(name).split("."))


def depth(name):
    return len(split(name))


def parent(name):
    return ".".join(split(name)[:-1])


@cache
def root(name):
    return split(name)[0]


def describe(name):
    return "root " + root(name)
'''

FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "app/__init__.py": "",
    "app/paths.py": PATHS,
    "tests/test_a_depth.py": "from app.paths import depth\n\n\ndef test_depth():\n"
                             "    assert depth('a.b') == 2\n",
    "tests/test_b_describe.py": "from app.paths import describe\n\n\ndef test_describe():\n"
                                "    assert describe('a.b') == 'root a'\n",
    "tests/test_c_parent.py": "from app.paths import parent\n\n\ndef test_parent():\n"
                              "    assert parent('a.b') == 'a'\n",
    "tests/test_d_again.py": "from app.paths import describe\n\n\ndef test_again():\n"
                             "    assert describe('a.b').startswith('root')\n",
    "tests/test_e_other.py": "def test_other():\n    assert 1 + 1 == 2\n",
}

SPLIT = "python:function:app.paths.split"
CLEAN = "python:function:app.paths.clean"
BREAK = ('    return tuple(clean(name).split("."))', '    raise RuntimeError("broken")')
BREAK_CLEAN = ("    return name.strip()", '    raise RuntimeError("broken")')
CALLERS_TESTS = {"tests/test_a_depth.py::test_depth", "tests/test_b_describe.py::test_describe",
                 "tests/test_c_parent.py::test_parent", "tests/test_d_again.py::test_again"}


def make_cached_project(path: Path, cached: bool = True) -> FixtureRepo:
    files: dict[str, Any] = dict(FILES)
    if not cached:
        files["app/paths.py"] = PATHS.replace("@lru_cache(maxsize=None)\n", "").replace(
            "@cache\n", "")
    repo = FixtureRepo(path)
    repo.commit(files, "the paths project")
    return repo
