"""The git hooks that keep the store current: ``post-commit``, ``post-merge``, ``post-rewrite``.

Each hook is a short POSIX ``sh`` script that starts ``warpline hook-ingest`` in the
background (``nohup … &``, every descriptor on ``/dev/null``) and exits at once; the
background process leaves git's session and catches the store up to HEAD, so a merge, a
pull or a rebase is ingested like a commit. The hook's exit status is never ours: a
missing or broken warpline costs the commit nothing (the failure goes to
``.weft/warpline/ingest.log`` for ``warpline doctor``).

Where: git's own answer (``git rev-parse --git-path hooks``), so ``core.hooksPath`` and
linked worktrees (hooks live in the common directory) are honoured exactly as git will.

Chaining: a hook of another tool already at ``post-commit`` is renamed to
``post-commit.warpline-chained`` and our hook runs it first, with the same arguments and
stdin, and exits with its status. Renaming (rather than appending a block to the other
tool's file) works for hooks in any language and survives hooks that ``exit`` early. If
that tool later rewrites its hook while a chained copy exists, install reports a
``conflict`` and touches neither file: merging two versions of someone else's hook is not
ours to guess.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from warpline.errors import InvalidRepo
from warpline.git import command as gitcmd
from warpline.setup import trust
from warpline.setup._files import Action, Result, write_atomic

HOOK_NAMES: tuple[str, ...] = ("post-commit", "post-merge", "post-rewrite")
MARKER = "warpline-managed-hook"
CHAINED_SUFFIX = ".warpline-chained"
LOG_RELPATH = Path(".weft") / "warpline" / "ingest.log"
_HOOK_MODE = 0o755
_EXE_LINE = re.compile(r"^exe=(.+)$", re.MULTILINE)

_TEMPLATE = """\
#!/bin/sh
# {marker}: {hook} (written by `warpline install`; rerun it to update, never edit)
#
# Starts `warpline hook-ingest` detached and returns at once: it never blocks or fails the
# git command. A hook that was here before warpline is kept as {hook}{suffix}
# and runs first, with the same arguments and stdin; its exit status is this hook's.
status=0
if [ -x "$0{suffix}" ]; then
    "$0{suffix}" "$@"
    status=$?
fi
exe={exe}
if [ -x "$exe" ]; then
    nohup "$exe"{args} hook-ingest --hook {hook} --repo "$PWD" </dev/null >/dev/null 2>&1 &
elif [ -d .weft/warpline ] && [ ! -L .weft ] && [ ! -L .weft/warpline ] && [ ! -L {log} ]; then
    printf '{{"at": "%s", "hook": "{hook}", "ok": false, "error": %s}}\\n' \\
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" {missing} >>{log} 2>/dev/null
fi
exit $status
"""


@dataclass(frozen=True, slots=True)
class GitPaths:
    """Where a repository's hooks live, and its common git directory."""
    hooks_dir: Path
    common_dir: Path


def git_paths(root: Path) -> GitPaths:
    """Where git runs hooks from for ``root`` and its common directory (git's own answer)."""
    git = shutil.which("git")
    if git is None:
        raise InvalidRepo("git is not on PATH; the hooks are run by git, so install git "
                          "first (e.g. apt-get install git).", field="repo", value=str(root))
    done = gitcmd.run(root, ["rev-parse", "--path-format=absolute", "--git-path", "hooks",
                             "--git-common-dir"], timeout=30, keep_hooks_path=True)
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != 2:
        raise InvalidRepo(f"git could not locate the hooks of {str(root)!r}: "
                          f"{done.stderr.strip() or 'no answer'}. Is it a git work tree?",
                          field="repo", value=str(root))
    return GitPaths(hooks_dir=Path(lines[0]), common_dir=Path(lines[1]))


def written_hooks_dir(root: Path, paths: GitPaths) -> Path:
    """The hooks directory as configured, before links are followed (git answers with the
    resolved one): ``core.hooksPath`` taken from the work tree's top when relative, else
    the common directory's ``hooks``."""
    done = gitcmd.run(root, ["config", "--type=path", "--get", "core.hooksPath"], timeout=30,
                      keep_hooks_path=True)
    configured = done.stdout.strip() if done.returncode == 0 else ""
    if not configured:
        return paths.common_dir / "hooks"
    return Path(configured) if os.path.isabs(configured) else root / configured


def check_writable(root: Path, paths: GitPaths) -> None:
    """Refuse (``StoreUnsafe``) a hooks directory that a link leads out of the repository."""
    trust.refuse_escape(written_hooks_dir(root, paths), [root, paths.common_dir],
                        "the hooks directory")


def render_hook(hook: str, command: list[str]) -> str:
    """The script for ``hook`` that runs ``command`` (an absolute executable and its args)."""
    missing = json.dumps(f"the warpline executable named by the {hook} hook (exe=) is missing; "
                         "run `warpline doctor --fix` with the warpline the hooks should use")
    return _TEMPLATE.format(
        marker=MARKER, hook=hook, suffix=CHAINED_SUFFIX, exe=shlex.quote(command[0]),
        args="".join(f" {shlex.quote(a)}" for a in command[1:]), missing=shlex.quote(missing),
        log=shlex.quote(str(LOG_RELPATH)))


def is_ours(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return MARKER.encode() in handle.read(512)
    except OSError:
        return False


def install_hook(hooks_dir: Path, hook: str, command: list[str]) -> Action:
    """Put our ``hook`` in place, chaining a foreign one; never overwrite another tool's."""
    path = hooks_dir / hook
    chained = hooks_dir / f"{hook}{CHAINED_SUFFIX}"
    data = render_hook(hook, command).encode()
    result: Result
    detail = ""
    if not path.exists() and not path.is_symlink():
        result = "created"
    elif is_ours(path):
        if path.read_bytes() == data and (path.stat().st_mode & 0o777) == _HOOK_MODE:
            return Action("hooks", str(path), "unchanged", _chain_note(chained))
        result = "updated"
    elif chained.exists() or chained.is_symlink():
        return Action("hooks", str(path), "conflict",
                      f"{path.name} belongs to another tool and {chained.name} already holds "
                      f"an earlier hook; merge or remove one of them, then rerun install")
    else:
        os.replace(path, chained)  # a rename: the other tool's hook keeps its bytes and mode
        result = "created"
        detail = f"the existing hook now runs first as {chained.name}"
    write_atomic(path, data, mode=_HOOK_MODE)
    return Action("hooks", str(path), result, detail or _chain_note(chained))


def _chain_note(chained: Path) -> str:
    return f"chains {chained.name}" if chained.exists() else ""


@dataclass(frozen=True, slots=True)
class HookState:
    """What ``doctor`` needs to know about one installed hook."""

    name: str
    path: Path
    present: bool
    ours: bool
    executable: bool
    command: list[str]
    chained: bool

    @property
    def healthy(self) -> bool:
        return (self.present and self.ours and self.executable and bool(self.command)
                and os.access(self.command[0], os.X_OK))


def inspect_hook(hooks_dir: Path, hook: str) -> HookState:
    path = hooks_dir / hook
    present = path.is_file()
    ours = present and is_ours(path)
    command: list[str] = []
    if ours:
        text = path.read_text(encoding="utf-8", errors="replace")
        found = _EXE_LINE.search(text)
        args = re.search(r'nohup "\$exe"(.*?) hook-ingest', text)
        if found:
            command = shlex.split(found.group(1)) + (shlex.split(args.group(1)) if args else [])
    return HookState(name=hook, path=path, present=present, ours=ours,
                     executable=present and os.access(path, os.X_OK), command=command,
                     chained=(hooks_dir / f"{hook}{CHAINED_SUFFIX}").exists())
