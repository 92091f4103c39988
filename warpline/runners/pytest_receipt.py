"""What pytest's runs mean for a receipt (``warpline.runners.receipt``): which untracked
files change what a run tests, and which phase of a test decides its outcome."""

from __future__ import annotations

# Untracked files that change what pytest collects, imports or how it is configured: a run
# with one of these present did not test the commit's own tree.
_RUN_SUFFIXES = (".py", ".pyi", ".pth", ".so", ".pyd")
_RUN_NAMES = frozenset({"pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml",
                        "conftest.py"})


def run_input(path: str) -> bool:
    """An untracked ``path`` that changes what a pytest run collects or imports."""
    name = path.rsplit("/", 1)[-1]
    return name in _RUN_NAMES or name.endswith(_RUN_SUFFIXES)


def phase_outcome(when: str, outcome: str) -> str | None:
    """The outcome one phase's report gives its test (None: the phase does not decide): a
    failure in any phase, the call's result, a skip at setup."""
    if outcome == "failed" or when == "call" or (outcome == "skipped" and when == "setup"):
        return outcome
    return None
