"""Which ``warpline`` / ``warpline-mcp`` to write into hooks and ``.mcp.json``.

Always an absolute path, and preferably the console script installed beside the running
interpreter: that is the warpline doing the install, with its own Python and packages. A
``shutil.which`` hit may be a version-manager shim (pyenv, asdf) that costs a shell start
on every call and may point elsewhere tomorrow, so it is only the second choice; the last
resort is this interpreter with ``-I -m`` (isolated: never imports from the working
directory, which is the repository when git or an MCP client starts it).

``.mcp.json`` is committed, so it holds no machine path when it can: ``portable_command``
writes the bare script name when it is on PATH, else the absolute command above — never
``python -m``, which a client starting it in the repository would run from there.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

_MODULES = {"warpline": "warpline.cli", "warpline-mcp": "warpline.mcp"}


def command_for(script: str) -> list[str]:
    """``[absolute executable, *args]`` that runs ``script`` (``warpline`` or ``warpline-mcp``)."""
    beside = Path(sys.executable).parent / script
    if _is_executable(beside):
        return [str(beside)]
    found = shutil.which(script)
    if found and os.path.isabs(found):
        return [found]
    # Isolated mode: ``-m`` would otherwise import from the working directory first,
    # which is the repository when a hook or an MCP client starts it.
    return [str(Path(sys.executable).absolute()), "-I", "-m", _MODULES[script]]


def portable_command(script: str) -> list[str]:
    """``[command, *args]`` for a file a team commits: the bare script name when ``PATH``
    finds it (no machine path), else the absolute command, which never depends on the
    working directory the client starts it in."""
    found = shutil.which(script)
    if found and os.path.isabs(found):
        return [script]
    return command_for(script)


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def is_executable(path: str) -> bool:
    return _is_executable(Path(path))
