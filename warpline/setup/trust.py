"""Which command warpline may start, and where it may write: the repository is data.

A command is judged where it will really run. ``doctor`` spawns the MCP server with the
repository as its working directory, so a relative ``venv/bin/warpline-mcp`` or a ``PATH``
entry like ``.`` names a file *of the repository* there, whatever it names in the caller's
directory. ``resolve_in`` finds the executable the way the OS would from that directory;
``trusted_command`` accepts a command only when that file is this installation's (or the
one warpline recorded when it installed) and returns the absolute form to start, so what
was checked is what runs. ``python -m`` puts the working directory first on ``sys.path``
(a committed ``warpline/__init__.py`` would run), so an interpreter form is trusted only in
isolated mode (``-I``).

``refuse_escape`` is the write-side rule: a path warpline writes that lies, as written,
inside the repository or its git directory must still be there once links are followed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from warpline import settings
from warpline.errors import StoreUnsafe

__all__ = ["isolated", "refuse_escape", "resolve_in", "trusted_command"]


def resolve_in(command: Sequence[str], cwd: Path) -> list[str] | None:
    """``command`` with its executable made absolute as ``execvp`` would find it when
    started in ``cwd``; None when nothing executable is found."""
    if not command or not command[0]:
        return None
    head = command[0]
    candidates: list[Path]
    if os.sep in head or (os.altsep and os.altsep in head):
        candidates = [cwd / head]
    else:
        entries = settings.search_path().split(os.pathsep)
        candidates = [cwd / (entry or ".") / head for entry in entries]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return [os.path.abspath(path), *command[1:]]
    return None


def isolated(command: Sequence[str]) -> bool:
    """False for ``python -m module`` without ``-I`` (it would import from its working
    directory); True for every other form."""
    args = list(command[1:])
    if "-m" not in args:
        return True
    return "-I" in args[: args.index("-m")]


def trusted_command(command: Sequence[str], trusted: Sequence[Sequence[str]],
                    cwd: Path) -> list[str] | None:
    """The absolute command to start when ``command``, started in ``cwd``, runs the same
    file with the same arguments as one of ``trusted``; None otherwise."""
    resolved = resolve_in(command, cwd)
    if resolved is None or not isolated(resolved):
        return None
    real = os.path.realpath(resolved[0])
    for own in trusted:
        mine = resolve_in(own, cwd) if own and os.path.isabs(own[0]) else None
        if mine is None or not isolated(mine):
            continue
        if os.path.realpath(mine[0]) == real and list(mine[1:]) == resolved[1:]:
            return resolved
    return None


def refuse_escape(path: Path, bases: Sequence[Path], what: str, *,
                  field: str = "path") -> None:
    """Raise ``StoreUnsafe`` when ``path`` lies inside one of ``bases`` as written but a
    symbolic link on the way leads out of all of them. A path outside every base as
    written (a ``core.hooksPath`` a person pointed at a shared directory) is theirs to
    choose and passes."""
    written = Path(os.path.abspath(path))
    homes = [Path(os.path.abspath(b)) for b in bases]
    if not any(written.is_relative_to(home) for home in homes):
        return
    reals = [Path(os.path.realpath(b)) for b in bases]
    if any(Path(os.path.realpath(written)).is_relative_to(real) for real in reals):
        return
    link = _first_escaping_link(written, homes, reals)
    raise StoreUnsafe(
        f"{what} {str(written)!r} leads outside the repository through the symbolic link "
        f"{str(link)!r} -> {os.readlink(link)!r}; warpline never writes through a link out "
        f"of the repository. Remove or replace the link (`rm {link}`), or point the setting "
        "at a real directory, then rerun.", field=field, value=str(link))


def _first_escaping_link(path: Path, homes: Sequence[Path], reals: Sequence[Path]) -> Path:
    home = next(h for h in homes if path.is_relative_to(h))
    current = home
    for part in path.relative_to(home).parts:
        current = current / part
        if current.is_symlink():
            target = Path(os.path.realpath(current))
            if not any(target.is_relative_to(real) for real in reals):
                return current
    return path
