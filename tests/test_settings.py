"""One settings module: every environment variable is read, typed and documented once."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from warpline import settings

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "warpline"


def _reads_environment(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "environb"} \
                and isinstance(node.value, ast.Name) and node.value.id == "os":
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                alias.name in {"environ", "getenv"} for alias in node.names):
            lines.append(node.lineno)
    return lines


def test_only_the_settings_module_reads_the_environment() -> None:
    readers = {str(path.relative_to(ROOT)): lines for path in sorted(PACKAGE.rglob("*.py"))
               if path.name != "settings.py"
               if (lines := _reads_environment(ast.parse(path.read_text(encoding="utf-8"))))}
    assert readers == {}


def test_every_variable_named_in_the_code_is_a_setting() -> None:
    declared = {s.name for s in settings.SETTINGS}
    named = set()
    for path in PACKAGE.rglob("*.py"):
        named |= set(re.findall(r"\bWARPLINE_[A-Z_]+\b", path.read_text(encoding="utf-8")))
    assert named <= declared | set(settings.CHILD_VARIABLES)


def test_the_readme_lists_every_setting() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert settings.markdown_table() in readme


@pytest.mark.parametrize(("raw", "expected"), [
    (None, settings.DEFAULT_INTERACTIVE_BUDGET_S), ("", settings.DEFAULT_INTERACTIVE_BUDGET_S),
    ("1.5", 1.5), ("-4", 0.0), ("soon", settings.DEFAULT_INTERACTIVE_BUDGET_S),
])
def test_a_budget_parses_or_falls_back_to_its_default(
        raw: str | None, expected: float, monkeypatch: pytest.MonkeyPatch) -> None:
    if raw is None:
        monkeypatch.delenv(settings.INTERACTIVE_BUDGET_S.name, raising=False)
    else:
        monkeypatch.setenv(settings.INTERACTIVE_BUDGET_S.name, raw)
    assert settings.interactive_budget_s() == expected


def test_the_filigree_deadline_has_a_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(settings.FILIGREE_DEADLINE_S.name, "0")
    assert settings.filigree_deadline_s() == settings.MIN_FILIGREE_DEADLINE_S


def test_edge_sources_keep_order_and_drop_unknown_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(settings.EDGE_SOURCES.name, " builtin, nonsense ,loomweave")
    assert settings.edge_sources() == ("builtin", "loomweave")
    monkeypatch.delenv(settings.EDGE_SOURCES.name)
    assert settings.edge_sources() == settings.KNOWN_EDGE_SOURCES


def test_workers_and_log_level(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(settings.INGEST_WORKERS.name, "0")
    assert settings.ingest_workers() == 0
    monkeypatch.setenv(settings.LOG_LEVEL.name, "debug")
    assert settings.log_level() == "DEBUG"
    monkeypatch.setenv(settings.LOG_LEVEL.name, "chatty")
    assert settings.log_level() == "WARNING"


def test_default_workers_follow_the_affinity_mask_not_the_machine() -> None:
    # A real affinity limit (as taskset or a container sets it): one usable CPU, one
    # worker (whose memory stays bounded), not one per CPU of the machine.
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no affinity masks on this platform")
    code = ("import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
            "from warpline import settings; print(settings.usable_cpus(), "
            "settings.ingest_workers())")
    env = {k: v for k, v in os.environ.items() if k != settings.INGEST_WORKERS.name}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    assert done.stdout.split() == ["1", "1"]


def test_a_busy_machine_gets_one_worker_more(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(settings.INGEST_WORKERS.name, raising=False)
    cpus = settings.usable_cpus()
    if not sys.platform.startswith("linux") or not 2 <= cpus < settings.MAX_INGEST_WORKERS:
        pytest.skip("needs Linux and 2-3 usable CPUs")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cpus)]
    try:
        time.sleep(0.5)
        assert settings.runnable_elsewhere() >= cpus
        assert settings.ingest_workers() == cpus + 1
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
