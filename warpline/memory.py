"""How much memory this process may still take: the tighter of the machine's
``MemAvailable`` and its memory cgroup's limit less the cgroup's use.

A container or CI runner limits memory through its cgroup (v2: ``memory.max`` and
``memory.current``; v1: ``memory.limit_in_bytes`` and ``memory.usage_in_bytes``), and the
limit may be set on any ancestor of the process's own cgroup: each level on the way up is
read and the tightest kept. Past the limit the kernel kills a process of the group, so a
backfill that starts more workers than fit loses them (their slices are retried next run)
instead of finishing. Nothing here raises: what cannot be read is unknown (None).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["available_bytes"]

# v1 reports "no limit" as a huge page-aligned number rather than a word.
_UNLIMITED_V1 = 1 << 60


def available_bytes(root: Path = Path("/")) -> int | None:
    """Bytes this process may still allocate before the machine or its cgroup runs out;
    None when neither can be read. ``root`` is where ``/proc`` and ``/sys`` are found."""
    found = [n for n in (_mem_available(root), _cgroup_headroom(root)) if n is not None]
    return min(found) if found else None


def _mem_available(root: Path) -> int | None:
    try:
        text = (root / "proc/meminfo").read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            fields = line.split()
            if len(fields) >= 2 and fields[1].isdigit():
                return int(fields[1]) * 1024
    return None


def _cgroup_headroom(root: Path) -> int | None:
    """The smallest ``limit - use`` over the process's memory cgroup and its ancestors."""
    try:
        lines = (root / "proc/self/cgroup").read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    best: int | None = None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # v2: the unified hierarchy
            base, files = root / "sys/fs/cgroup", ("memory.max", "memory.current")
        elif "memory" in controllers.split(","):
            base, files = root / "sys/fs/cgroup/memory", ("memory.limit_in_bytes",
                                                          "memory.usage_in_bytes")
        else:
            continue
        for directory in _levels(base, path):
            headroom = _headroom(directory, *files)
            if headroom is not None and (best is None or headroom < best):
                best = headroom
    return best


def _levels(base: Path, path: str) -> list[Path]:
    """The cgroup's directory and each ancestor up to the mount (inside a cgroup
    namespace the path is ``/`` and the mount is the group itself)."""
    parts = [p for p in path.strip().split("/") if p and p not in (".", "..")]
    return [base.joinpath(*parts[:depth]) for depth in range(len(parts), -1, -1)]


def _headroom(directory: Path, limit_file: str, usage_file: str) -> int | None:
    """``limit - use``, where the use leaves out the inactive file cache (the kernel
    reclaims it before it kills anyone; a backfill fills the cache with the pack and the
    store, so counting it would call a group full that is not)."""
    limit, usage = _number(directory / limit_file), _number(directory / usage_file)
    if limit is None or limit >= _UNLIMITED_V1:
        return None
    used = max((usage or 0) - _inactive_file(directory / "memory.stat"), 0)
    return max(limit - used, 0)


def _inactive_file(stat: Path) -> int:
    """The group's reclaimable file cache (``memory.stat``: v2 ``inactive_file``, v1
    ``total_inactive_file``); 0 when unreadable."""
    try:
        lines = stat.read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return 0
    values = dict(line.split(" ", 1) for line in lines if line.count(" ") == 1)
    for key in ("total_inactive_file", "inactive_file"):
        if values.get(key, "").strip().isdigit():
            return int(values[key])
    return 0


def _number(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None  # v2 writes "max" for no limit
