"""The corpora in tests: a real history, or a skip off CI (a failure in CI, which provides
them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import _requests_corpus as corpus


def early_requests_or_skip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``corpus.early_requests`` in a fresh temporary directory."""
    try:
        corpus.requests_bundle()
    except corpus.CorpusMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{exc} (CI provides the corpora)")
        pytest.skip(str(exc))
    return corpus.early_requests(tmp_path_factory.mktemp("requests") / "clone")
