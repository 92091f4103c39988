"""What the plugin reads off pytest's objects (fixtures, why a run was partial).

Kept apart from ``plugin`` (hooks only). ``_fixtureinfo`` is pytest's own per-item record
of the fixture closure (pytest-xdist and testmon read it too).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


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
    if session.shouldstop or session.shouldfail:
        reasons.append("the run stopped early")
    if session.testscollected and session.testsfailed and config.getoption("maxfail", 0):
        reasons.append("--maxfail")
    return reasons
