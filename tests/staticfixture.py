"""A fixture project for the static test selection: framework-style dispatch (a registry
of callbacks called by a dispatcher), an event bus, fixtures in nested conftests (one
overriding another), constructors, a property, a package re-export, inherited test
methods, and a pytest configuration with custom ``testpaths``/``python_*`` rules."""

from __future__ import annotations

from pathlib import Path

from tests.gitfixture import FixtureRepo

F = "python:function:"
C = "python:class:"

FILES = {
    "pyproject.toml": """\
[project]
name = "app"

[tool.pytest.ini_options]
testpaths = ["checks"]
python_files = ["check_*.py"]
python_classes = ["Check"]
python_functions = ["check_"]
""",
    "app/__init__.py": "from .core import dispatch\n",
    "app/core.py": """\
HANDLERS = {}


def route(name):
    def deco(fn):
        HANDLERS[name] = fn
        return fn
    return deco


def dispatch(name, *args):
    return HANDLERS[name](*args)


def reset():
    HANDLERS.clear()
""",
    "app/views.py": """\
from app.core import route


@route("add")
def add(a, b):
    return a + b


@route("neg")
def neg(a):
    return -a
""",
    "app/bus.py": """\
class EventBus:
    def __init__(self):
        self._handlers = {}

    def on(self, name):
        def deco(fn):
            self._handlers.setdefault(name, []).append(fn)
            return fn
        return deco

    def emit(self, name):
        return [fn() for fn in self._handlers.get(name, [])]


bus = EventBus()


@bus.on("ping")
def on_ping():
    return "pong"
""",
    "app/model.py": """\
class Point:
    def __new__(cls, *args):
        return super().__new__(cls)

    def __init__(self, x, y):
        self.x, self.y = x, y

    @property
    def norm(self):
        return abs(self.x) + abs(self.y)
""",
    "checks/conftest.py": """\
import pytest

from app.model import Point


@pytest.fixture
def point():
    return Point(3, 4)


@pytest.fixture(autouse=True)
def clean():
    yield
""",
    "checks/sub/conftest.py": """\
import pytest


@pytest.fixture
def point(point):
    return point
""",
    "checks/check_model.py": """\
import app.views
from app import dispatch
from app.model import Point


def check_norm(point: Point):
    assert point.norm == 7


class BaseChecks:
    def check_add(self):
        assert dispatch("add", 1, 2) == 3


class CheckChild(BaseChecks):
    pass


class CheckOther(BaseChecks):
    def check_add(self):
        assert True


def helper():
    return app.views
""",
    "checks/sub/check_sub.py": """\
def check_sub_point(point):
    assert point.x == 3
""",
    "checks/check_bus.py": """\
from app.bus import bus


def check_emit():
    assert bus.emit("ping") == ["pong"]
""",
    "tests/test_outside.py": """\
from app import dispatch


def test_not_collected_here():
    assert dispatch("neg", 1) == -1
""",
}

ADD = f"{F}app.views.add"
NEG = f"{F}app.views.neg"
ON_PING = f"{F}app.bus.on_ping"
DISPATCH = f"{F}app.core.dispatch"
POINT_NEW = f"{F}app.model.Point.__new__"
POINT_INIT = f"{F}app.model.Point.__init__"
NORM = f"{F}app.model.Point.norm"
FIXTURE_POINT = f"{F}checks.conftest.point"
FIXTURE_CLEAN = f"{F}checks.conftest.clean"
SUB_POINT = f"{F}checks.sub.conftest.point"
CHECK_NORM = f"{F}checks.check_model.check_norm"
BASE_ADD = f"{F}checks.check_model.BaseChecks.check_add"
CHECK_SUB = f"{F}checks.sub.check_sub.check_sub_point"
CHECK_EMIT = f"{F}checks.check_bus.check_emit"


def make_static_repo(path: Path) -> FixtureRepo:
    repo = FixtureRepo(path)
    repo.commit(dict(FILES), "app")
    return repo
