"""The one way warpline runs the ``git`` executable.

The repository is untrusted input, and git reads configuration that can run programs: an
fsmonitor hook, the repository's hooks, a pager, an external diff driver, a textconv
filter, the ``ext::`` transport. Every git process warpline starts gets those turned off on
its command line (``-c`` outranks every configuration file), never prompts, and is bounded
in time by its caller.

A transport command (``fetch``, ``push``, ``ls-remote``, ...) also runs programs the
config names: ``remote.<name>.uploadpack``/``receivepack`` (given on the command line
instead: ``--upload-pack=git-upload-pack``), ``core.alternateRefsCommand`` (``true``),
``core.gitProxy`` (``GIT_PROXY_COMMAND`` set empty: no proxy), and ``core.sshCommand`` and
``credential.helper`` / ``credential.<url>.helper``: the repository's own values (local and
worktree scope) are replaced by the user's (system, global, ``-c``) or dropped; the
environment's ``GIT_SSH_COMMAND``/``GIT_SSH`` still win, as in git.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from functools import lru_cache
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
    ("core.alternateRefsCommand", "true"),
)
# Transport commands, and the option naming the program they start on the other side.
_TRANSPORT = {"fetch": "--upload-pack=git-upload-pack", "pull": "--upload-pack=git-upload-pack",
              "ls-remote": "--upload-pack=git-upload-pack",
              "clone": "--upload-pack=git-upload-pack",
              "push": "--receive-pack=git-receive-pack"}
_REPOSITORY_SCOPES = frozenset({"local", "worktree"})
# A textconv driver is named by attributes (committed ``.gitattributes`` included), so no
# ``-c`` can reach it: the commands that would run one are told not to.
_DIFF_FAMILY = frozenset({"diff", "log", "show", "diff-tree", "diff-index", "diff-files",
                          "format-patch", "whatchanged"})
_TEXTCONV_ONLY = frozenset({"blame", "grep"})


def safe_args(*args: str, keep_hooks_path: bool = False,
              extra: Sequence[str] = ()) -> list[str]:
    """``git`` with the neutralising ``-c`` options (and ``extra`` ones), ``--no-pager``,
    then ``args``.

    ``keep_hooks_path`` leaves ``core.hooksPath`` as configured, for the one question
    that is about it (where git runs hooks from); such a command must run none.
    """
    exe = shutil.which("git") or "git"
    command = [exe, "--no-pager"]
    for key, value in SAFE_CONFIG:
        if keep_hooks_path and key == "core.hooksPath":
            continue
        command += ["-c", f"{key}={value}"]
    return [*command, *extra, *_with_no_filters(args)]


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
    elif sub in _TRANSPORT:
        out[at + 1:at + 1] = [_TRANSPORT[sub]]
    return out


def _is_transport(args: Sequence[str]) -> bool:
    return bool(args) and args[0] in _TRANSPORT


@lru_cache(maxsize=16)
def transport_config(root: str) -> tuple[str, ...]:
    """``-c`` options that put the user's own ssh command and credential helpers in place
    of the repository's (see the module docstring)."""
    done = subprocess.run(
        safe_args("-C", root, "config", "--show-scope", "--get-regexp",
                  r"^(credential\..*helper|core\.sshcommand)$"),
        capture_output=True, text=True, timeout=30, env=safe_env(), check=False,
        stdin=subprocess.DEVNULL)
    if done.returncode not in (0, 1):  # git too old for --show-scope: drop them all
        return ("-c", "credential.helper=", "-c", "core.sshCommand=ssh")
    entries: list[tuple[str, str, str]] = []
    for line in done.stdout.splitlines():
        scope, _, rest = line.partition("\t")
        key, _, value = rest.partition(" ")
        entries.append((scope, key, value))
    out: list[str] = []
    for key in dict.fromkeys(k for _, k, _ in entries):
        if not any(s in _REPOSITORY_SCOPES for s, k, _ in entries if k == key):
            continue
        mine = [v for s, k, v in entries if k == key and s not in _REPOSITORY_SCOPES]
        if key == "core.sshcommand":
            out += ["-c", f"core.sshCommand={mine[-1] if mine else 'ssh'}"]
        else:  # an empty value resets the list; the user's own helpers come back after
            out += ["-c", f"{key}="]
            for value in mine:
                out += ["-c", f"{key}={value}"]
    return tuple(out)


def safe_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A child environment in which git never prompts and reads no external diff."""
    env = dict(settings.child_environment() if base is None else base)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_ASKPASS", "true")
    env.pop("GIT_EXTERNAL_DIFF", None)
    env["GIT_PAGER"] = "cat"
    env.setdefault("GIT_PROXY_COMMAND", "")  # set (even empty), git reads no core.gitProxy
    if env.get("GIT_SSH") and not env.get("GIT_SSH_COMMAND"):
        env["GIT_SSH_COMMAND"] = shlex.quote(env["GIT_SSH"])  # outranks core.sshCommand
    return env


def run(root: Path, args: Sequence[str], *, timeout: float,
        env: Mapping[str, str] | None = None,
        keep_hooks_path: bool = False) -> subprocess.CompletedProcess[str]:
    """``git -C root args`` with repository-controlled execution turned off.

    Raises ``subprocess.TimeoutExpired`` and ``OSError`` as ``subprocess.run`` does; callers
    translate them into their own error at their seam.
    """
    extra = transport_config(str(root)) if _is_transport(args) else ()
    command = safe_args("-C", str(root), *args, keep_hooks_path=keep_hooks_path, extra=extra)
    return subprocess.run(command, capture_output=True, text=True,
                          timeout=timeout, env=safe_env(env), check=False,
                          stdin=subprocess.DEVNULL)
