"""The memory a backfill may plan for: the machine's ``MemAvailable`` and the cgroup's limit.

The kernel files are read from a directory tree laid out as ``/proc`` and ``/sys`` are
(the parsing cases: nested groups, v1 and v2, no limit, garbage), and once for real: a
memory cgroup created for the test (``bench/_cgroup.py``), a limit set, a child process
started inside it (root only; skipped where cgroups cannot be created).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from warpline import memory, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from _cgroup import CgroupUnavailable, memory_cgroup

MB = 1 << 20


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="ascii")
    return root


MEMINFO = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:    2000000 kB\n"


def test_the_machine_alone_when_no_cgroup_limits_memory(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"proc/meminfo": MEMINFO, "proc/self/cgroup": "0::/\n",
                            "sys/fs/cgroup/memory.max": "max\n",
                            "sys/fs/cgroup/memory.current": "123456\n"})
    assert memory.available_bytes(root) == 2_000_000 * 1024


def test_v2_the_tightest_level_on_the_way_up_wins(tmp_path: Path) -> None:
    base = "sys/fs/cgroup/"
    root = _tree(tmp_path, {
        "proc/meminfo": MEMINFO,
        "proc/self/cgroup": "0::/ci.slice/job-1\n",
        base + "ci.slice/job-1/memory.max": "max\n",  # the job's own group: no limit
        base + "ci.slice/job-1/memory.current": str(50 * MB),
        base + "ci.slice/memory.max": str(512 * MB),  # its parent: 512 MB, 200 used
        base + "ci.slice/memory.current": str(200 * MB),
    })
    assert memory.available_bytes(root) == 312 * MB
    # The inactive file cache (the pack and the store a backfill reads) is reclaimed before
    # anything is killed: it is not counted as used.
    (root / base / "ci.slice/memory.stat").write_text(
        f"anon {150 * MB}\nfile {50 * MB}\ninactive_file {40 * MB}\n", encoding="ascii")
    assert memory.available_bytes(root) == 352 * MB


def test_v1_limit_less_usage_and_its_unlimited_number(tmp_path: Path) -> None:
    base = "sys/fs/cgroup/memory/"
    files = {"proc/meminfo": MEMINFO,
             "proc/self/cgroup": "9:cpu,cpuacct:/x\n4:memory:/runner\n0::/\n",
             base + "runner/memory.limit_in_bytes": str(400 * MB),
             base + "runner/memory.usage_in_bytes": str(100 * MB),
             base + "memory.limit_in_bytes": "9223372036854771712",
             base + "memory.usage_in_bytes": str(5000 * MB),
             base + "runner/memory.stat": f"cache {30 * MB}\ninactive_file {30 * MB}\n"
                                          f"total_inactive_file {20 * MB}\n"}
    # v1 reads the group's hierarchical figure (total_), not its own.
    assert memory.available_bytes(_tree(tmp_path, files)) == 320 * MB
    # Used past its limit (the kernel reclaims first): nothing left, not a negative number.
    (tmp_path / base / "runner/memory.usage_in_bytes").write_text(str(470 * MB))
    assert memory.available_bytes(tmp_path) == 0


def test_what_cannot_be_read_is_unknown(tmp_path: Path) -> None:
    assert memory.available_bytes(tmp_path) is None  # no /proc at all
    root = _tree(tmp_path, {"proc/meminfo": "MemAvailable: lots\n",
                            "proc/self/cgroup": "garbage\n0::/a\n",
                            "sys/fs/cgroup/a/memory.max": "12abc\n"})
    assert memory.available_bytes(root) is None


def test_workers_for_the_memory_left() -> None:
    assert settings.workers_for_memory(24_000 * MB) > settings.MAX_INGEST_WORKERS
    assert settings.workers_for_memory(270 * MB) == 2  # the writer + 192 MB, + 64 each more
    assert settings.workers_for_memory(255 * MB) == 1
    # Short of even one worker's share: still one (the in-process walk holds more).
    assert settings.workers_for_memory(150 * MB) == 1
    assert settings.workers_for_memory(0) == 1


def test_a_real_cgroup_limit_caps_the_workers(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("cgroups are Linux's")
    code = ("from warpline import memory, settings; "
            "print(memory.available_bytes(), settings.workers_for_memory(), "
            "settings.usable_cpus(), settings.ingest_workers())")
    env = {k: v for k, v in os.environ.items() if k != settings.INGEST_WORKERS.name}
    try:
        with memory_cgroup(200 * MB) as group:
            done = group.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                             timeout=60)
    except CgroupUnavailable as exc:
        pytest.skip(str(exc))
    assert done.returncode == 0, done.stderr
    available, fit, cpus, workers = (int(x) for x in done.stdout.split())
    assert 0 < available <= 200 * MB
    assert fit == 1  # where 2 workers were measured killed (pip, 200 MB), 1 completed
    assert workers == (1 if cpus >= 2 else 0)
