"""Living in a repository: ``warpline install``, ``doctor``, the git hooks, session context.

The library half of the ``install`` / ``doctor`` / ``session-context`` / ``hook-ingest``
commands (``warpline.cli.setup_cmds`` only adapts). Every file it writes is written whole
(a temporary file, then ``os.replace``) and only when its bytes would change, so a second
``install`` is a no-op and an interrupted one never leaves half a file.

Exports load lazily: the hooks' background process and ``session-context`` start on every
commit and every agent session, and import only what they use.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "COMPONENTS": "warpline.setup.install",
    "Action": "warpline.setup._files",
    "Check": "warpline.setup._check",
    "DoctorReport": "warpline.setup.doctor",
    "InstallReport": "warpline.setup.install",
    "hook_ingest": "warpline.setup.hook_runner",
    "install": "warpline.setup.install",
    "run_doctor": "warpline.setup.doctor",
    "session_context": "warpline.setup.session",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'warpline.setup' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
