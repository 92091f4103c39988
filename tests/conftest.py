"""Shared test plumbing. Kept small: helpers live in importable modules under tests/."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# `from tests.contract_check import ...` must work under plain `pytest` too, not only
# under `python -m pytest` (which puts the working directory on sys.path).
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.contract_check import assert_valid_envelope as _assert_valid_envelope  # noqa: E402

# A read that stops short of HEAD would leave a detached backfill running past its test
# (and its temp dir): off unless a test turns it on (tests/test_background.py).
os.environ.setdefault("WARPLINE_BACKGROUND_BACKFILL", "0")


@pytest.fixture
def assert_valid_envelope() -> Callable[[Any], None]:
    """The contract check as a fixture, for tests that prefer injection to imports."""
    return _assert_valid_envelope


GUARD_DIR = Path(__file__).resolve().parent / "envelope_guard"


@pytest.fixture(autouse=True, scope="session")
def every_envelope_is_validated() -> Iterator[None]:
    """One wrapper around ``warpline.registry.dispatch``, in this process and in every
    Python process a test starts: each envelope (success or error) is checked against its
    contract where it is made, so no test has to remember to."""
    from tests.envelope_guard import sitecustomize as guard
    from warpline import registry

    guard.install(registry)
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(GUARD_DIR), saved) if p)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
