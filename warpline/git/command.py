"""The one way warpline runs the ``git`` executable.

The repository is untrusted input, and git reads configuration that can run programs: an
fsmonitor hook, the repository's hooks, a pager, an external diff driver, a textconv
filter, the ``ext::`` transport. Every git process warpline starts gets those turned off on
its command line (``-c`` outranks every configuration file), never prompts, and is bounded
in time by its caller.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from warpline import settings

# Configuration that makes git run a program chosen by whoever wrote the config.
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("diff.external", ""),
    ("protocol.ext.allow", "never"),
    ("uploadpack.packObjectsHook", ""),
    ("submodule.recurse", "false"),
    ("fetch.recurseSubmodules", "false"),
)
# A textconv driver is named by attributes (committed ``.gitattributes`` included), so no
# ``-c`` can reach it: the commands that would run one are told not to.
_DIFF_FAMILY = frozenset({"diff", "log", "show", "diff-tree", "diff-index", "diff-files",
                          "format-patch", "whatchanged"})
_TEXTCONV_ONLY = frozenset({"blame", "grep"})


def safe_args(*args: str, keep_hooks_path: bool = False) -> list[str]:
    """``git`` with the neutralising ``-c`` options, ``--no-pager``, then ``args``.

    ``keep_hooks_path`` leaves ``core.hooksPath`` as configured, for the one question
    that is about it (where git runs hooks from); such a command must run none.
    """
    exe = shutil.which("git") or "git"
    command = [exe, "--no-pager"]
    for key, value in SAFE_CONFIG:
        if keep_hooks_path and key == "core.hooksPath":
            continue
        command += ["-c", f"{key}={value}"]
    return [*command, *_with_no_filters(args)]


def _with_no_filters(args: Sequence[str]) -> list[str]:
    """``args`` with ``--no-ext-diff``/``--no-textconv`` after the subcommand that reads
    them (``-C DIR`` may come first)."""
    out = list(args)
    at = 2 if len(out) >= 2 and out[0] == "-C" else 0
    if at >= len(out):
        return out
    sub = out[at]
    if sub in _DIFF_FAMILY:
        out[at + 1:at + 1] = ["--no-ext-diff", "--no-textconv"]
    elif sub in _TEXTCONV_ONLY:
        out[at + 1:at + 1] = ["--no-textconv"]
    return out


def safe_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A child environment in which git never prompts and reads no external diff."""
    env = dict(settings.child_environment() if base is None else base)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_ASKPASS", "true")
    env.pop("GIT_EXTERNAL_DIFF", None)
    env["GIT_PAGER"] = "cat"
    return env


def run(root: Path, args: Sequence[str], *, timeout: float,
        env: Mapping[str, str] | None = None,
        keep_hooks_path: bool = False) -> subprocess.CompletedProcess[str]:
    """``git -C root args`` with repository-controlled execution turned off.

    Raises ``subprocess.TimeoutExpired`` and ``OSError`` as ``subprocess.run`` does; callers
    translate them into their own error at their seam.
    """
    command = safe_args("-C", str(root), *args, keep_hooks_path=keep_hooks_path)
    return subprocess.run(command, capture_output=True, text=True,
                          timeout=timeout, env=safe_env(env), check=False,
                          stdin=subprocess.DEVNULL)
