"""What the plugin reads off pytest's objects (fixtures, why a run was partial).

Kept apart from ``plugin`` (hooks only). ``_fixtureinfo`` is pytest's own per-item record
of the fixture closure (pytest-xdist and testmon read it too).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from warpline import settings
from warpline.runners.pytest_receipt import narrowing
from warpline.runners.pytest_session import Where


def shared_fixtures(item: pytest.Item) -> set[str]:
    """Keys of the wider-than-one-test fixtures the test uses."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    out = set()
    for name in getattr(item, "fixturenames", ()):
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope != "function":
            out.add(fixture_key(defs[-1]))
    return out


def fixture_key(fixturedef: Any) -> str:
    func = getattr(fixturedef, "func", None)
    code = getattr(func, "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return f"{fixturedef.baseid}::{fixturedef.argname}@{where}"


def partial_reasons(config: pytest.Config, session: pytest.Session,
                    deselected: int) -> list[str]:
    """Why this run was not the whole suite (empty when it was)."""
    reasons = []
    if config.getoption("keyword", ""):
        reasons.append(f"-k {config.getoption('keyword')}")
    if config.getoption("markexpr", ""):
        reasons.append(f"-m {config.getoption('markexpr')}")
    if deselected:
        reasons.append(f"{deselected} tests deselected")
    if getattr(config, "args_source", None) == pytest.Config.ArgsSource.ARGS:
        testpaths = [str(p) for p in config.getini("testpaths")]
        given = sorted(str(Path(a).resolve()) for a in config.args if not a.startswith("-"))
        whole = sorted(str((config.rootpath / p).resolve()) for p in testpaths) \
            or [str(config.rootpath.resolve())]
        if given and given != whole:
            reasons.append("explicit paths: " + " ".join(config.invocation_params.args[:5]))
    given = [*config.invocation_params.args,
             *_split(settings.pytest_addopts())]
    reasons += [f"given {option}" for option in narrowing([str(a) for a in given])]
    if session.shouldstop or session.shouldfail:
        reasons.append("the run stopped early")
    if session.testscollected and session.testsfailed and config.getoption("maxfail", 0):
        reasons.append("--maxfail")
    return reasons


def scope_reasons(config: pytest.Config) -> list[str]:
    """Why a run, whatever it collected, was not the repository's whole suite: it ran a
    sub-project from its own rootdir (its own ini file), or only the tests under the
    directory it was started from. (A map recorded so is that project's; a receipt is not
    the whole suite's.)"""
    reasons = []
    where = Where.find(Path(config.rootpath))
    if where is not None and where.rootdir:
        reasons.append(f"rootdir {where.rootdir}: that project's own tests only")
    if getattr(config, "args_source", None) == pytest.Config.ArgsSource.INVOCATION_DIR and \
            Path(config.invocation_params.dir).resolve() != config.rootpath.resolve():
        reasons.append(f"run from {config.invocation_params.dir}: the tests under it only")
    return reasons


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()
