"""Real filesystem faults for tests that run as root too (CI does: permission bits prove
nothing there): a read-only bind mount and a tiny tmpfs, made inside a private mount
namespace so nothing outside the test sees them.

``unshare -rm`` (a user namespace, so no privilege is needed) is tried first, then
``unshare -m`` (root without user namespaces). ``unavailable()`` says why neither works,
for the skip reason; the steps run in a child process (tests/ns_steps.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

STEPS = Path(__file__).with_name("ns_steps.py")


@lru_cache(maxsize=1)
def _prefix() -> tuple[list[str] | None, str]:
    """The ``unshare`` command that can mount here, or None and why not."""
    if not sys.platform.startswith("linux"):
        return None, "mount namespaces are Linux-only"
    unshare = shutil.which("unshare")
    if unshare is None or shutil.which("mount") is None:
        return None, "util-linux `unshare`/`mount` is not installed"
    reasons = []
    with tempfile.TemporaryDirectory() as scratch:
        probe = (f"mount -t tmpfs -o size=64k tmpfs {scratch} && "
                 f"mount --bind -o ro {scratch} {scratch} && "
                 f"! touch {scratch}/x 2>/dev/null")
        for flags in (["-rm"], ["-m"]):
            try:
                done = subprocess.run([unshare, *flags, "sh", "-c", probe],
                                      capture_output=True, text=True, timeout=30)
            except (OSError, subprocess.TimeoutExpired) as exc:
                reasons.append(f"unshare {' '.join(flags)}: {exc}")
                continue
            if done.returncode == 0:
                return [unshare, *flags], ""
            reasons.append(f"unshare {' '.join(flags)}: exit {done.returncode} "
                           f"{done.stderr.strip()[:200]}")
    return None, "no mount namespace available: " + "; ".join(reasons)


def unavailable() -> str | None:
    prefix, why = _prefix()
    return None if prefix is not None else why


def run(steps: list[list[Any]], tmp: Path) -> list[Any]:
    """Run ``steps`` in one fresh namespace; their results, in order."""
    prefix, why = _prefix()
    assert prefix is not None, why
    plan = tmp / "ns-steps.json"
    plan.write_text(json.dumps(steps))
    done = subprocess.run([*prefix, sys.executable, str(STEPS), str(plan)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    results: list[Any] = json.loads(done.stdout)
    return results


def warpline(*args: str) -> list[str]:
    """The CLI, as this interpreter runs it (the namespace has the same PATH and venv)."""
    return [sys.executable, "-m", "warpline", *args]
