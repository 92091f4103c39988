"""Which ``warpline`` / ``warpline-mcp`` to write into hooks and ``.mcp.json``.

Always an absolute path, and preferably the console script installed beside the running
interpreter: that is the warpline doing the install, with its own Python and packages. A
``shutil.which`` hit may be a version-manager shim (pyenv, asdf) that costs a shell start
on every call and may point elsewhere tomorrow, so it is only the second choice; the last
resort is this interpreter with ``-m``.

``.mcp.json`` is different: a team commits it, so it must hold no machine path.
``portable_command`` writes the bare script name when it is on PATH, else
``python -m <module>`` (the agent's environment must then have warpline importable).
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
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", _MODULES[script]]


def portable_command(script: str) -> list[str]:
    """``[command, *args]`` with no machine path, for a file a team commits."""
    if shutil.which(script):
        return [script]
    return ["python", "-m", _MODULES[script]]


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def is_executable(path: str) -> bool:
    return _is_executable(Path(path))
