"""The real requests repository and its own test suite, run offline (loopback only).

Shared by ``bench_selection.py`` and the real-suite test (``tests/test_realsuite_requests.py``).

* The corpus: ``requests.bundle`` in the shared corpora directory, found as
  ``$WARPLINE_CORPORA`` or else ``../shared/corpora`` beside the project's root (the same
  relative place on a developer's machine and in CI's fresh clone).
* Its test dependencies come from the package registry (``requirements-dev.txt`` of the
  corpus: pytest-httpbin, httpbin, trustme, PySocks, pytest-cov; plus pytest-xdist); the
  project's ``test`` extra and ``.ci/run`` install them. ``missing_suite_deps`` names what is
  absent, so a caller can skip with the install command rather than fail obscurely.
* The suite runs against the clone's ``src/`` (``PYTHONPATH``), with ``_loopback_guard``
  loaded: it deselects ``NETWORK_TESTS`` exactly (pytest's ``--deselect`` matches by prefix,
  and would drop ``test_proxy_error_on_bad_url`` with ``test_proxy_error``) and refuses, and
  logs, any lookup or connect that would leave the machine.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent
CORPORA_ENV = "WARPLINE_CORPORA"
DESELECT_ENV = "LOOPBACK_GUARD_DESELECT"
GUARD_LOG_ENV = "LOOPBACK_GUARD_LOG"

# Tests that send traffic off the machine, found by running the suite with the network
# unreachable (a network namespace holding only loopback) and with the guard logging every
# non-loopback lookup and connect, and by reading the tests. Exact node ids, or a function's
# id for all of its parametrizations.
NETWORK_TESTS: dict[str, str] = {
    "tests/test_requests.py::TestTimeout::test_connect_timeout":
        "connects to the non-routable 10.255.255.1 and expects the connect to time out",
    "tests/test_requests.py::TestTimeout::test_total_timeout_connect":
        "connects to the non-routable 10.255.255.1 and expects the connect to time out",
    "tests/test_requests.py::TestRequests::test_errors[http://doesnotexist.google.com-"
    "ConnectionError]":
        "resolves doesnotexist.google.com: a DNS query to the machine's resolver",
    "tests/test_requests.py::TestRequests::test_proxy_error":
        "resolves the proxy host 'non-resolvable-address': a DNS query to the resolver",
}

# The slowest tests of the suite (each above ~0.3 s on a 2-vCPU machine, 79 s of the ~85 s
# plain run: timeouts, waits and retries against loopback servers). ``subset="fast"`` leaves
# them out so the real-suite test fits its time in CI; the benchmark runs everything.
SLOW_TESTS: tuple[str, ...] = (
    "tests/test_testserver.py",
    "tests/test_requests.py::TestTimeout",
    "tests/test_requests.py::TestPreparingURLs::test_different_connection_pool_for_tls_settings",
    "tests/test_requests.py::TestPreparingURLs::test_different_connection_pool_for_mtls_settings",
    "tests/test_requests.py::TestRequests::test_HTTP_302_TOO_MANY_REDIRECTS",
    "tests/test_requests.py::TestRequests::test_DIGEST",
    "tests/test_lowlevel.py",
)

# module to import -> the distribution that provides it
SUITE_DEPS: dict[str, str] = {
    "pytest_httpbin": "pytest-httpbin", "httpbin": "httpbin", "trustme": "trustme",
    "socks": "PySocks", "pytest_cov": "pytest-cov", "xdist": "pytest-xdist",
    "coverage": "coverage",
}


class CorpusMissing(RuntimeError):
    """The corpus bundle or the suite's dependencies are not on this machine."""


def corpora_dir() -> Path:
    configured = os.environ.get(CORPORA_ENV)
    return Path(configured) if configured else PROJECT_ROOT.parent / "shared" / "corpora"


def requests_bundle() -> Path:
    bundle = corpora_dir() / "requests.bundle"
    if not bundle.is_file():
        raise CorpusMissing(f"{bundle} not found: set {CORPORA_ENV} to the directory holding "
                            "requests.bundle")
    return bundle


def missing_suite_deps() -> list[str]:
    return [dist for module, dist in SUITE_DEPS.items()
            if importlib.util.find_spec(module) is None]


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def clone_requests(dest: Path, *, history: bool = True) -> Path:
    """A clone of the corpus at ``dest`` on a local branch ``bench`` at the bundle's HEAD.

    ``history=False`` makes ``bench`` an orphan branch holding HEAD's tree in one commit
    (the same code and suite; a first backfill then takes a second instead of ~40 s)."""
    subprocess.run(["git", "clone", "-q", str(requests_bundle()), str(dest)], check=True,
                   capture_output=True)
    git("config", "user.name", "Bench Editor", cwd=dest)
    git("config", "user.email", "bench@example.invalid", cwd=dest)
    git("config", "commit.gpgsign", "false", cwd=dest)
    if history:
        git("checkout", "-q", "-B", "bench", cwd=dest)
    else:
        head = git("rev-parse", "--short=12", "HEAD", cwd=dest).strip()
        git("checkout", "-q", "--orphan", "bench", cwd=dest)
        git("commit", "-q", "-m", f"requests at {head}, without its history", cwd=dest)
        for ref in git("for-each-ref", "--format=%(refname)", cwd=dest).split():
            if ref != "refs/heads/bench":
                git("update-ref", "-d", ref, cwd=dest)
    exclude = dest / ".git" / "info" / "exclude"
    exclude.write_text(exclude.read_text() + "\n/.weft/\n" if exclude.exists() else "/.weft/\n")
    return dest


def early_requests(dest: Path, first_parent: int = 400) -> Path:
    """A clone whose ``bench`` branch is at requests' ``first_parent``-th first-parent
    commit (400: ~1,500 commits, a few seconds of backfill): a real history for tests."""
    clone = clone_requests(dest)
    early = git("rev-list", "--reverse", "--first-parent", "HEAD",
                cwd=clone).split()[first_parent - 1]
    git("checkout", "-q", "-B", "bench", early, cwd=clone)
    return clone


def suite_env(clone: Path, guard_log: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COV_CORE_", "PYTEST_", "COVERAGE_"))}
    path = [str(clone / "src"), str(BENCH_DIR)]
    env["PYTHONPATH"] = os.pathsep.join([*path, env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                        else path)
    env[DESELECT_ENV] = "\n".join(NETWORK_TESTS)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if guard_log is not None:
        env[GUARD_LOG_ENV] = str(guard_log)
    return env


def suite_argv(extra: Sequence[str] = (), subset: str = "all",
               paths: Sequence[str] = ("tests",)) -> list[str]:
    argv = [sys.executable, "-m", "pytest", *paths, "-q", "-p", "no:cacheprovider",
            "-p", "_loopback_guard", "-W", "ignore::DeprecationWarning"]
    if subset == "fast":
        for prefix in SLOW_TESTS:  # prefixes on purpose: whole files and classes
            argv += ["--deselect", prefix]
    elif subset != "all":
        raise ValueError(f"subset must be 'all' or 'fast', not {subset!r}")
    return [*argv, *extra]


@dataclass(frozen=True, slots=True)
class SuiteRun:
    returncode: int
    wall_s: float
    cpu_s: float  # user + system time of the pytest process and its children
    output: str


def run_suite(clone: Path, extra: Sequence[str] = (), *, subset: str = "all",
              env: dict[str, str] | None = None, timeout: float = 1200,
              paths: Sequence[str] = ("tests",)) -> SuiteRun:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(suite_argv(extra, subset, paths), cwd=clone, capture_output=True,
                          text=True, env=env if env is not None else suite_env(clone),
                          timeout=timeout)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return SuiteRun(done.returncode, wall, cpu, done.stdout + done.stderr)


def collected_ids(clone: Path, subset: str = "all") -> list[str]:
    """The node ids the suite runs (network tests deselected), in collection order."""
    run = run_suite(clone, ["--collect-only"], subset=subset)
    if run.returncode != 0:
        raise RuntimeError(f"collecting requests' suite failed:\n{run.output[-2000:]}")
    return [line for line in run.output.splitlines() if line.startswith("tests/") and "::" in line]
