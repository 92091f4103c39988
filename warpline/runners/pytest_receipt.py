"""What pytest's runs mean for a receipt (``warpline.runners.receipt``): which untracked
files change what a run tests, which phase of a test decides its outcome, and which
options given to a run (its command line and ``PYTEST_ADDOPTS``, not the committed
configuration) make it narrower than the committed suite as configured."""

from __future__ import annotations

from collections.abc import Sequence

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


# Options that change what the committed suite collects or how it is configured: a run given
# one is a selection, never the whole suite (issue 38: ``--ignore`` of the failing file,
# ``-o python_files=...``, another ini file or rootdir, conftest files turned off, plugins
# loaded that can rewrite outcomes).
_NARROWING = ("--ignore", "--ignore-glob", "--deselect", "--override-ini", "-o",
              "--config-file", "-c", "--rootdir", "--confcutdir", "--noconftest",
              "--pyargs", "--last-failed", "--lf", "--stepwise", "--sw", "--stepwise-skip",
              "--sw-skip", "--collect-in-virtualenv", "-p")
_HARMLESS_PLUGINS = ("no:cacheprovider", "xdist", "no:randomly")
_WITH_VALUE = ("--ignore", "--ignore-glob", "--deselect", "--override-ini", "-o",
               "--config-file", "-c", "--rootdir", "--confcutdir", "-p")


def narrowing(args: Sequence[str]) -> list[str]:
    """The options among ``args`` (as given: ``--opt=v``, ``--opt v``, ``-ov``) that narrow
    or reconfigure the committed suite, each with its value."""
    out: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            break
        name, value = arg, None
        if arg.startswith("--") and "=" in arg:
            name, value = arg.split("=", 1)
        elif arg[:2] in ("-o", "-c", "-p") and len(arg) > 2 and not arg.startswith("--"):
            name, value = arg[:2], arg[2:]
        if name not in _NARROWING:
            continue
        if value is None and name in _WITH_VALUE and index < len(args):
            value = args[index]
            index += 1
        if name == "-p" and value in _HARMLESS_PLUGINS:
            continue
        out.append(name if value is None else f"{name} {value}")
    return out
