"""Whole-file writes that never clobber half-way, and the record of what each one did."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from warpline.errors import StoreUnsafe

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


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def write_in_checkout(path: Path, data: bytes, *, root: Path, what: str,
                      append: bool = False) -> None:
    """Write (or append) ``data`` at ``path``, a file warpline writes where a job runs
    (``ci --markdown``, ``--selection``, the step summary), never through a link: a final
    link is refused (``O_NOFOLLOW``), so is a path that lies in the checkout ``root`` as
    written but leaves it through a link on the way, and anything but a regular file (a
    FIFO is not waited on). ``StoreUnsafe`` with ``what`` as the field; other failures
    are the ``OSError``."""
    from warpline.setup.trust import refuse_escape

    refuse_escape(path, [root], f"`{what}`", field=what)
    flags = os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _NONBLOCK | (
        os.O_APPEND if append else 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):
            raise _not_a_file(path, what, "is a symbolic link" if exc.errno == errno.ELOOP
                              else "is not a regular file") from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _not_a_file(path, what, "is not a regular file")
        if not append:
            os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _not_a_file(path: Path, what: str, reason: str) -> StoreUnsafe:
    return StoreUnsafe(
        f"`{what}` {str(path)!r} {reason}: warpline writes its reports only into regular "
        "files, never through a link (a committed link could send the write outside the "
        f"checkout). Remove it (`rm {path}`) or name another file, then rerun.",
        field=what, value=str(path),
        details={"path": str(path), "reason": reason})
