"""Resources of the whole process tree of a benchmark: peak RSS (and PSS) sampled from
``/proc``, CPU time from ``getrusage``, and a CPU-bound load to run beside it (Linux).

RSS counts a page shared by forked workers once per process (an upper bound); PSS splits
it among them (what the tree really holds). Both are summed over this process and every
descendant at each sample, and the peak of each sum is kept.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024 if hasattr(os, "sysconf") else 4


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out.extend(int(c) for c in (task / "children").read_text().split())
    except OSError:
        pass
    return out


def tree_pids(root: int, exclude: frozenset[int] = frozenset()) -> list[int]:
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo.extend(c for c in _children(pid) if c not in exclude)
    return pids


def _rss_kb(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    return 0


class TreeMonitor:
    """``with TreeMonitor() as m: ...`` then ``m.figures()``: peak RSS/PSS sums (MB),
    processes seen at once, CPU seconds of this process and its reaped children."""

    def __init__(self, interval: float = 0.5, exclude: frozenset[int] = frozenset()) -> None:
        self.interval = interval
        self.exclude = exclude  # processes of ours that are not the measured work
        self.peak_rss_kb = self.peak_pss_kb = self.peak_procs = 0
        self.peak_by_pid: dict[int, int] = {}
        self.at_peak: dict[int, int] = {}  # each process's RSS when the sum peaked
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = 0.0
        self._cpu0 = (0.0, 0.0)
        self.seconds = 0.0
        self.cpu_self = self.cpu_children = 0.0

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            pids = tree_pids(me, self.exclude)
            self.peak_procs = max(self.peak_procs, len(pids))
            rss = {p: _rss_kb(p) for p in pids}
            if sum(rss.values()) > self.peak_rss_kb:
                self.peak_rss_kb, self.at_peak = sum(rss.values()), rss
            self.peak_pss_kb = max(self.peak_pss_kb, sum(_pss_kb(p) for p in pids))
            for pid, kb in rss.items():
                self.peak_by_pid[pid] = max(self.peak_by_pid.get(pid, 0), kb)
            self._stop.wait(self.interval)

    @staticmethod
    def _cpu() -> tuple[float, float]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime

    def __enter__(self) -> TreeMonitor:
        self._cpu0 = self._cpu()
        self._started = time.perf_counter()
        if sys.platform.startswith("linux"):
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.seconds = time.perf_counter() - self._started
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        own, kids = self._cpu()
        self.cpu_self, self.cpu_children = own - self._cpu0[0], kids - self._cpu0[1]

    def figures(self) -> dict[str, Any]:
        return {"peak_rss_mb": round(self.peak_rss_kb / 1024, 1),
                "peak_pss_mb": round(self.peak_pss_kb / 1024, 1),
                "peak_processes": self.peak_procs,
                # Each process's own peak (this one first), which need not coincide.
                "peak_rss_each_mb": [round(self.peak_by_pid[p] / 1024) for p in
                                     sorted(self.peak_by_pid, key=lambda p: p != os.getpid())],
                # Each process's RSS at the sample where the sum peaked (this one first):
                # what made the peak (a process's own peak may come when the others are
                # gone, as the writer's does after the workers exit).
                "rss_at_peak_mb": [round(self.at_peak[p] / 1024) for p in
                                   sorted(self.at_peak, key=lambda p: p != os.getpid())],
                "cpu_s": round(self.cpu_self + self.cpu_children, 2),
                "cpu_writer_s": round(self.cpu_self, 2),
                "cpu_workers_s": round(self.cpu_children, 2)}


_BUSY = "while True: pass"


class CpuLoad:
    """``n`` CPU-bound processes (busy loops) running until the block ends."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> CpuLoad:
        self.procs = [subprocess.Popen([sys.executable, "-c", _BUSY]) for _ in range(self.n)]
        time.sleep(0.2)  # let them reach their loop
        return self

    @property
    def pids(self) -> frozenset[int]:
        return frozenset(p.pid for p in self.procs)

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:  # only the processes this object started
            proc.kill()
        for proc in self.procs:
            proc.wait()
