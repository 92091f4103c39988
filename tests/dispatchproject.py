"""A small project whose tests reach its code the way frameworks do: a registry of callbacks
called by a dispatcher, pytest fixtures injected by name (one session-scoped), a property,
a constructor, and module-level registration. The static call graph cannot see most of it;
a test map recorded by really running the suite can.

``make_project(path)`` commits it (real git) and returns the ``FixtureRepo``;
``run_pytest(path, *args)`` runs pytest on it in a subprocess with this interpreter (which
has warpline installed, so its ``pytest11`` plugin is there), never reaching the network.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.gitfixture import FixtureRepo

REGISTRY = '''\
HANDLERS = {}


def route(name):
    def register(fn):
        HANDLERS[name] = fn
        return fn
    return register


def dispatch(name, *args):
    return HANDLERS[name](*args)
'''

VIEWS = '''\
from app.registry import route


@route("greet")
def greet(who):
    return "hello " + who


@route("shout")
def shout(who):
    return greet(who).upper()


@route("unused")
def never_called(who):
    return who
'''

MODELS = '''\
class Account:
    fee = 1

    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    @property
    def display(self):
        return self.owner + ": " + str(self.balance)

    def deposit(self, amount):
        self.balance += amount - self.fee
        return self.balance


def make_bank():
    return {"ann": Account("ann", 10)}
'''

CONFTEST = '''\
import pytest

from app.models import Account, make_bank


@pytest.fixture
def account():
    return Account("ann", 10)


@pytest.fixture(scope="session")
def bank():
    return make_bank()
'''

TEST_DISPATCH = '''\
import app.views  # noqa: F401  (registers the handlers)
from app.registry import dispatch


def test_greet():
    assert dispatch("greet", "bo") == "hello bo"


def test_shout():
    assert dispatch("shout", "bo") == "HELLO BO"
'''

TEST_ACCOUNT = '''\
def test_display(account):
    assert account.display == "ann: 10"


def test_deposit(account):
    assert account.deposit(5) == 14


def test_bank_owner(bank):
    assert bank["ann"].owner == "ann"


def test_bank_again(bank):
    assert "ann" in bank


class TestPlain:
    def test_arithmetic(self):
        assert 1 + 1 == 2
'''

FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "app/__init__.py": "",
    "app/registry.py": REGISTRY,
    "app/views.py": VIEWS,
    "app/models.py": MODELS,
    "tests/conftest.py": CONFTEST,
    "tests/test_dispatch.py": TEST_DISPATCH,
    "tests/test_account.py": TEST_ACCOUNT,
}

ALL_TESTS = {
    "tests/test_dispatch.py::test_greet", "tests/test_dispatch.py::test_shout",
    "tests/test_account.py::test_display", "tests/test_account.py::test_deposit",
    "tests/test_account.py::test_bank_owner", "tests/test_account.py::test_bank_again",
    "tests/test_account.py::TestPlain::test_arithmetic",
}


def make_project(path: Path) -> FixtureRepo:
    repo = FixtureRepo(path)
    repo.commit(dict(FILES), "the dispatch project")
    return repo


def run_pytest(path: Path, *args: str, env: dict[str, str] | None = None,
               timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """pytest in ``path`` (a fresh interpreter, no cache written, no user plugins)."""
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("PYTEST_", "WARPLINE_", "COV_"))}
    full_env.update({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(path),
                     "WARPLINE_INTERACTIVE_BUDGET_S": "30"})
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=path, env=full_env, capture_output=True, text=True, timeout=timeout, check=False)
