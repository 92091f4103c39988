"""Every environment variable warpline reads: named, typed, defaulted and documented once.

Configuration comes from the environment, never from tool arguments. Each accessor reads
``os.environ`` when called (a long-lived MCP server sees the environment it was started
with; tests set variables per test). A value that does not parse falls back to the default:
a typo in a shell profile must not break every call. README's configuration table is
generated from ``SETTINGS`` (the meta-test holds it to this module).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Setting:
    """One environment setting: its name, what it means, its documented default."""
    name: str
    meaning: str
    default: str  # as documented; "" for none


LOOMWEAVE_COMMAND = Setting("WARPLINE_LOOMWEAVE_COMMAND", "the loomweave executable",
                            "`loomweave`")
EDGE_SOURCES = Setting("WARPLINE_EDGE_SOURCES", "edge sources allowed, in order",
                       "`loomweave,builtin`")
FILIGREE_API_URL = Setting("FILIGREE_API_URL", "filigree dashboard (else its published "
                           "port, else `http://127.0.0.1:8377`)", "")
INTERACTIVE_BUDGET_S = Setting("WARPLINE_INTERACTIVE_BUDGET_S", "how long a read tool may "
                               "catch up before answering", "`3`")
AUTO_CAPTURE_BUDGET_S = Setting("WARPLINE_AUTO_CAPTURE_BUDGET_S", "time for an automatic "
                                "snapshot when none exists (0: off)", "`5`")
FILIGREE_DEADLINE_S = Setting("WARPLINE_FILIGREE_DEADLINE_S", "one deadline for all "
                              "filigree lookups of a call", "`3`")
INGEST_WORKERS = Setting("WARPLINE_INGEST_WORKERS", "walker processes for long backfills "
                         "(0: in-process)",
                         "usable CPUs, one more on a busy machine (1 on one CPU), ≤ 4, fewer when "
                         "free memory (the cgroup's limit included) holds fewer")
LOG_LEVEL = Setting("WARPLINE_LOG_LEVEL", "log level of `warpline-mcp` (its stderr)",
                    "`WARNING`")
DEBUG = Setting("WARPLINE_DEBUG", "set: the CLI prints a traceback with an internal error",
                "unset")

BACKGROUND_BACKFILL = Setting("WARPLINE_BACKGROUND_BACKFILL", "`0`: a read tool that could "
                              "not catch up within its budget does not leave a background "
                              "backfill running (`warpline hook-ingest`, detached) to ingest "
                              "the rest", "`1`")
PROGRESS_INTERVAL_S = Setting("WARPLINE_PROGRESS_INTERVAL_S", "seconds between the plain "
                              "progress lines backfill and install write to stderr when it "
                              "is not a terminal (CI logs)", "`5`")

RENAME_LIMIT = Setting("WARPLINE_RENAME_LIMIT", "files git's rename detection examines per "
                       "commit (a commit past it is named in the answers' warnings)", "`10000`")
COMMIT_TIMEOUT_S = Setting("WARPLINE_COMMIT_TIMEOUT_S", "how long reading one commit may "
                           "take before it is recorded as failed and skipped", "`300`")
RECORD = Setting("WARPLINE_RECORD", "`1`: the pytest plugin records a test map (as "
                 "`--warpline-record`)", "unset")

NO_COLOR = Setting("NO_COLOR", "set: CLI tables without colour (the no-color.org "
                   "convention)", "unset")

SETTINGS: tuple[Setting, ...] = (
    LOOMWEAVE_COMMAND, EDGE_SOURCES, FILIGREE_API_URL, INTERACTIVE_BUDGET_S,
    AUTO_CAPTURE_BUDGET_S, FILIGREE_DEADLINE_S, INGEST_WORKERS, LOG_LEVEL, DEBUG,
    RENAME_LIMIT, COMMIT_TIMEOUT_S, RECORD, NO_COLOR, PROGRESS_INTERVAL_S, BACKGROUND_BACKFILL,
)
DEFAULT_RENAME_LIMIT = 10_000

KNOWN_EDGE_SOURCES = ("loomweave", "builtin")
DEFAULT_INTERACTIVE_BUDGET_S = 3.0
DEFAULT_COMMIT_TIMEOUT_S = 300.0
DEFAULT_AUTO_CAPTURE_BUDGET_S = 5.0
DEFAULT_FILIGREE_DEADLINE_S = 3.0
DEFAULT_PROGRESS_INTERVAL_S = 5.0
MIN_FILIGREE_DEADLINE_S = 0.05


def _raw(setting: Setting, env: Mapping[str, str] | None = None) -> str | None:
    return (os.environ if env is None else env).get(setting.name)


def _seconds(setting: Setting, default: float, floor: float) -> float:
    raw = _raw(setting) or ""
    try:
        return max(float(raw), floor) if raw else default
    except ValueError:
        return default


def loomweave_command() -> str:
    return _raw(LOOMWEAVE_COMMAND) or "loomweave"


def edge_sources_raw() -> str | None:
    """The variable as set (``None``: unset), for messages that quote it."""
    return _raw(EDGE_SOURCES)


def edge_sources() -> tuple[str, ...]:
    raw = edge_sources_raw()
    if raw is None:
        return KNOWN_EDGE_SOURCES
    return tuple(n for n in (s.strip() for s in raw.split(",")) if n in KNOWN_EDGE_SOURCES)


def filigree_api_url(env: Mapping[str, str] | None = None) -> str | None:
    """The configured filigree URL (stripped), or ``None`` when unset or blank."""
    return (_raw(FILIGREE_API_URL, env) or "").strip() or None


def interactive_budget_s() -> float:
    """How long a read tool may spend ingesting new commits before it answers with what
    it has (and says how far behind it is)."""
    return _seconds(INTERACTIVE_BUDGET_S, DEFAULT_INTERACTIVE_BUDGET_S, 0.0)


def commit_timeout_s() -> float:
    """How long the walker may spend on one commit (diff, parses, pairing) before the
    commit is recorded as failed, with that reason, and skipped."""
    return _seconds(COMMIT_TIMEOUT_S, DEFAULT_COMMIT_TIMEOUT_S, 0.01)


def auto_capture_budget_s() -> float:
    return _seconds(AUTO_CAPTURE_BUDGET_S, DEFAULT_AUTO_CAPTURE_BUDGET_S, 0.0)


def filigree_deadline_s() -> float:
    return _seconds(FILIGREE_DEADLINE_S, DEFAULT_FILIGREE_DEADLINE_S, MIN_FILIGREE_DEADLINE_S)


def progress_interval_s() -> float:
    """Seconds between plain progress lines off a terminal (0: one per report)."""
    return _seconds(PROGRESS_INTERVAL_S, DEFAULT_PROGRESS_INTERVAL_S, 0.0)


def background_backfill() -> bool:
    """Whether a read tool that stopped short of HEAD leaves the rest to a background
    backfill (on unless set to a false word: 0, false, no, off)."""
    return (_raw(BACKGROUND_BACKFILL) or "").strip().lower() not in ("0", "false", "no", "off")


def ingest_workers() -> int:
    """Workers to use for a long backfill; 0 means compute in-process (where ``fork`` is
    not the start method)."""
    raw = _raw(INGEST_WORKERS) or ""
    if raw.isdigit():
        return int(raw)
    if not sys.platform.startswith("linux"):
        return 0  # fork is the cheap start method; elsewhere stay in-process
    cpus = usable_cpus()
    if cpus < 2:
        # One worker still: it bounds its memory slice by slice, the in-process walk does
        # not (measured on one CPU, requests: 20.0-21.0 s and 112 MB in the cgroup's own
        # accounting, against 21.8-22.8 s and 124 MB in-process; pip in-process was killed
        # by a 200 MB cgroup that one worker completed in).
        return 1
    # The scheduler shares a busy machine per runnable process: when the CPUs are all
    # taken already, one worker more keeps the backfill's share (the workers claim slices
    # as they go, so none waits on a slower one).
    extra = 1 if runnable_elsewhere() >= cpus else 0
    return min(cpus + extra, MAX_INGEST_WORKERS, workers_for_memory())


MAX_INGEST_WORKERS = 4
# What a pip backfill (16,238 commits) needed inside a real memory cgroup, the kernel's
# own accounting: the writer and one worker completed within a 200 MB limit (peak use 189
# MB, file cache included); with two workers, 200 MB killed a worker and 300 MB completed
# (peak 248 MB). Each worker starts every slice afresh, so its memory stays bounded.
FIRST_WORKER_BYTES = 192 << 20  # the writer and one worker
NEXT_WORKER_BYTES = 64 << 20  # each worker more


def workers_for_memory(available: int | None = None) -> int:
    """Workers the memory the machine and this process's cgroup leave free
    (``warpline.memory``) holds, beside the writer; unknown memory sets no bound. At
    least one even when that is short: a worker holds less than the in-process walk,
    which keeps its parses for the whole history (measured: in-process, the same 200 MB
    cgroup killed the backfill itself)."""
    if available is None:
        from warpline.memory import available_bytes

        available = available_bytes()
        if available is None:
            return MAX_INGEST_WORKERS
    return max(1, 1 + (available - FIRST_WORKER_BYTES) // NEXT_WORKER_BYTES)


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask: a container's or taskset's
    limit), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def runnable_elsewhere(samples: int = 5, interval_s: float = 0.01) -> int:
    """Runnable tasks on the machine other than this one, now (the median of a few
    readings of ``/proc/loadavg``'s running count; 0 when it cannot be read). The load
    average itself lags by a minute."""
    readings: list[int] = []
    for index in range(samples):
        try:
            with open("/proc/loadavg", encoding="ascii") as handle:
                running = int(handle.read().split()[3].split("/")[0])
        except (OSError, IndexError, ValueError):
            return 0
        readings.append(max(running - 1, 0))  # this process is running while it reads
        if index + 1 < samples:
            time.sleep(interval_s)
    return sorted(readings)[len(readings) // 2]


def log_level() -> str:
    import logging  # only the MCP server configures logging: the CLI's start-up skips it

    level = (_raw(LOG_LEVEL) or "WARNING").upper()
    return level if level in logging.getLevelNamesMapping() else "WARNING"


def debug() -> bool:
    return bool(_raw(DEBUG))


def no_color() -> bool:
    return NO_COLOR.name in os.environ


def markdown_table() -> str:
    """README's configuration table."""
    lines = ["| variable | meaning | default |", "| --- | --- | --- |"]
    lines.extend(f"| `{s.name}` | {s.meaning} | {s.default} |" for s in SETTINGS)
    return "\n".join(lines)


def rename_limit() -> int:
    """Files git's rename detection may examine per commit; a value that is not a positive
    integer falls back to the default."""
    try:
        value = int((_raw(RENAME_LIMIT) or "").strip())
    except ValueError:
        return DEFAULT_RENAME_LIMIT
    return value if value > 0 else DEFAULT_RENAME_LIMIT


def record_test_map() -> bool:
    """``WARPLINE_RECORD`` set to a true word (1, true, yes, on)."""
    return (_raw(RECORD) or "").strip().lower() in ("1", "true", "yes", "on")


# -- variables warpline sets for its own hook in a child process (not settings: never read
# from the user's environment; named here so every WARPLINE_ name is in this module) ------
JS_COVERAGE_DIR = "WARPLINE_JS_COVERAGE"  # mocha's per-test hook (js/mocha_coverage.cjs): out
JS_ROOT = "WARPLINE_JS_ROOT"  # the same hook: the package's root
CHILD_VARIABLES = (JS_COVERAGE_DIR, JS_ROOT)


def node_version() -> str:
    """``NODE_VERSION`` (official node images set it): named in a JS map's tool version."""
    return os.environ.get("NODE_VERSION", "")


# -- variables other programs set: read here too, so nothing else touches os.environ ------
def ci_environment() -> Mapping[str, str]:
    """The CI provider's own variables (GitHub Actions' ``GITHUB_*``, GitLab's ``CI_*``),
    from which ``warpline ci`` finds the range it reports on."""
    return os.environ


def step_summary_file() -> str | None:
    """``GITHUB_STEP_SUMMARY``: the file GitHub Actions shows as the job's summary."""
    return os.environ.get("GITHUB_STEP_SUMMARY") or None


def pytest_addopts() -> str:
    """``PYTEST_ADDOPTS``: options given to a pytest run besides its command line (a run
    given narrowing ones is not the whole suite: ``pytest_plugin.items``)."""
    return os.environ.get("PYTEST_ADDOPTS", "")


def search_path() -> str:
    """The executable search path (``PATH``) this process would start programs with."""
    return os.environ.get("PATH", os.defpath)


def child_environment() -> dict[str, str]:
    """A copy of this process's environment for a child process (git) to start from."""
    return dict(os.environ)
