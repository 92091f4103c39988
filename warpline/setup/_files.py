"""Whole-file writes that never clobber half-way, and the record of what each one did."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Result = Literal["created", "updated", "unchanged", "skipped", "conflict", "failed"]
# Results that mean "this component is not in the state install wanted".
PROBLEMS: frozenset[str] = frozenset({"conflict", "failed"})


@dataclass(frozen=True, slots=True)
class Action:
    """One thing install (or doctor --fix) did, or decided not to do."""

    component: str
    target: str
    result: Result
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"component": self.component, "target": self.target, "result": self.result,
                "detail": self.detail}


def write_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` in one rename: readers see the old or the new file.

    ``mode`` defaults to the existing file's mode, else 0o666 less the process umask (what
    ``open`` would create)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def current_umask() -> int:
    """The process umask (read by setting it and putting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def ensure_file(path: Path, data: bytes, *, mode: int | None = None) -> Result:
    """Make ``path`` hold exactly ``data`` (and ``mode``); say what that took."""
    if path.is_file():
        same_mode = mode is None or (path.stat().st_mode & 0o777) == mode
        if same_mode and path.read_bytes() == data:
            return "unchanged"
        write_atomic(path, data, mode=mode)
        return "updated"
    write_atomic(path, data, mode=mode)
    return "created"
