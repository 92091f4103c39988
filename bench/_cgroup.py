"""A real memory cgroup for a measurement or a test: created, limited, a command run
inside it, its peak use and OOM kills read back, removed. Root only (Linux, cgroup v2
with the memory controller, or v1's memory hierarchy); ``CgroupUnavailable`` otherwise.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

UNIFIED = Path("/sys/fs/cgroup")
V1_MEMORY = UNIFIED / "memory"


class CgroupUnavailable(Exception):
    """No memory cgroup can be created or limited here (not root, not Linux, read-only)."""


@dataclass(frozen=True)
class MemoryGroup:
    path: Path
    v2: bool

    def peak_bytes(self) -> int | None:
        """The group's peak use, the kernel's accounting (file cache included); None
        where the kernel keeps no peak (v2 before Linux 5.19)."""
        return _number(self.path / ("memory.peak" if self.v2 else "memory.max_usage_in_bytes"))

    def oom_kills(self) -> int | None:
        name = "memory.events" if self.v2 else "memory.oom_control"
        for line in _read(self.path / name).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return None

    def run(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: Path,
            timeout: float) -> subprocess.CompletedProcess[str]:
        """``argv`` started inside the group: a shell joins it, then becomes the command."""
        script = f'echo $$ > "{self.path}/cgroup.procs" && exec "$@"'
        return subprocess.run(["sh", "-c", script, "sh", *argv], capture_output=True,
                              text=True, env=dict(env), cwd=cwd, timeout=timeout)


@contextmanager
def memory_cgroup(limit_bytes: int) -> Iterator[MemoryGroup]:
    name = f"warpline-{uuid.uuid4().hex[:8]}"
    v2 = "memory" in _read(UNIFIED / "cgroup.controllers").split()
    path = (UNIFIED if v2 else V1_MEMORY) / name
    try:
        path.mkdir()
    except OSError as exc:
        raise CgroupUnavailable(f"cannot create a memory cgroup at {path}: {exc}") from None
    try:
        try:
            (path / ("memory.max" if v2 else "memory.limit_in_bytes")).write_text(
                str(limit_bytes))
        except OSError as exc:
            raise CgroupUnavailable(f"cannot limit the cgroup {path}: {exc}") from None
        yield MemoryGroup(path, v2)
    finally:
        try:
            path.rmdir()  # empty once its processes have exited
        except OSError:
            pass


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii")
    except OSError:
        return ""


def _number(path: Path) -> int | None:
    text = _read(path).strip()
    return int(text) if text.isdigit() else None
