"""Shared test plumbing. Kept small: helpers live in importable modules under tests/."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# `from tests.contract_check import ...` must work under plain `pytest` too, not only
# under `python -m pytest` (which puts the working directory on sys.path).
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.contract_check import assert_valid_envelope as _assert_valid_envelope  # noqa: E402


@pytest.fixture
def assert_valid_envelope() -> Callable[[Any], None]:
    """The contract check as a fixture, for tests that prefer injection to imports."""
    return _assert_valid_envelope
