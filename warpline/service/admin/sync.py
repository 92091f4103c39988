"""``warpline sync [REMOTE]``: exchange the verification notes ref with a git remote.

Plain git transport, nothing else: ``git ls-remote`` (does the remote have the ref?),
``git fetch`` of ``refs/notes/warpline`` into a scratch ref, ``git notes merge -s
cat_sort_uniq`` (a union of the JSON lines, see ``warpline.git.notes``), then ``git push``
of the merged ref. The merge makes a merge commit, so the push is a fast-forward; when
another machine pushed in between, the push is refused and the round is retried (three
rounds at most). Every git call is bounded in time; git never prompts.

The remote is a configured remote name or a URL/path the user passed; a value starting
with ``-`` is refused so it can never be read as an option.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pygit2

from warpline.errors import InvalidArgument, PeerUnavailable
from warpline.git import command as gitcmd
from warpline.git.lookups import upstream_branch
from warpline.git.notes import NOTES_REF
from warpline.service.admin import mapsync

INCOMING_REF = "refs/notes/warpline-incoming"
GIT_TIMEOUT_S = 120.0
ROUNDS = 3


@dataclass(slots=True)
class SyncReport:
    """What one notes sync did: fetched, merged, pushed, and in how many rounds."""
    remote: str
    fetched: bool = False
    merged: bool = False
    pushed: bool = False
    remote_had_notes: bool = False
    local_had_notes: bool = False
    rounds: int = 0
    notes_ref: str = NOTES_REF
    messages: list[str] = field(default_factory=list)
    maps: mapsync.MapSync = field(default_factory=mapsync.MapSync)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["maps"].pop("lease", None)
        return out


def _env(root: Path) -> dict[str, str]:
    env = gitcmd.safe_env()
    # A notes merge writes a commit; CI machines often have no identity configured.
    probe = gitcmd.run(root, ["config", "user.email"], timeout=GIT_TIMEOUT_S, env=env)
    if not probe.stdout.strip():
        for role in ("AUTHOR", "COMMITTER"):
            env.setdefault(f"GIT_{role}_NAME", "warpline")
            env.setdefault(f"GIT_{role}_EMAIL", "warpline@localhost")
    return env


def _git(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return gitcmd.run(root, args, timeout=GIT_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise PeerUnavailable(
            f"`git {args[0]}` took longer than {GIT_TIMEOUT_S:.0f} s; check the remote, "
            "then rerun `warpline sync`.", field="remote") from None
    except OSError as exc:
        raise PeerUnavailable(f"git could not be run ({exc}); install git and retry.",
                              field="remote") from None


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def default_remote(repo: pygit2.Repository) -> str:
    """The current branch's upstream remote, else ``origin``."""
    upstream = upstream_branch(repo)
    if upstream is not None and upstream.remote_name:
        return str(upstream.remote_name)
    return "origin"


def check_remote(repo: pygit2.Repository, remote: str) -> str:
    remote = remote.strip()
    if not remote or remote.startswith("-"):
        raise InvalidArgument(
            f"{remote!r} is not a remote; pass a remote name (see `git remote`) or a "
            "repository path or URL.", field="remote", value=remote)
    names = {str(n) for n in repo.remotes.names() if n}
    if remote in names or "/" in remote or ":" in remote or os.path.isdir(remote):
        return remote
    raise InvalidArgument(
        f"no remote named {remote!r} (known: {', '.join(sorted(names)) or 'none'}); pass "
        "one of them, a repository path, or a URL.", field="remote", value=remote)


def _has_ref(root: Path, env: dict[str, str], ref: str) -> bool:
    return _git(root, env, "rev-parse", "--verify", "--quiet", ref).returncode == 0


def _remote_has_notes(root: Path, env: dict[str, str], remote: str) -> bool:
    done = _git(root, env, "ls-remote", "--refs", "--", remote, NOTES_REF)
    if done.returncode != 0:
        raise PeerUnavailable(
            f"cannot reach remote {remote!r}: {_first_line(done.stderr)}. Check "
            "`git remote -v` and your access, then rerun `warpline sync`.",
            field="remote", value=remote)
    return any(line.endswith(NOTES_REF) for line in done.stdout.splitlines())


def _exchange_maps(root: Path, repo: pygit2.Repository, remote: str, git: mapsync.Git,
                   report: mapsync.MapSync, *, push: bool) -> None:
    """Test maps ride along (``warpline.service.admin.mapsync``); a remote that refuses
    them leaves the notes exchange alone and is named in ``maps.skipped``."""
    for _ in range(ROUNDS):
        mapsync.fetch(root, repo, remote, git, report)
        if not push or mapsync.publish(root, repo, remote, git, report):
            return


def fetch_notes(root: Path, remote: str, report: SyncReport, env: dict[str, str]) -> None:
    """Fetch the remote's notes and merge them (union) into the local notes ref."""
    report.remote_had_notes = _remote_has_notes(root, env, remote)
    if not report.remote_had_notes:
        return
    done = _git(root, env, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                remote, f"+{NOTES_REF}:{INCOMING_REF}")
    if done.returncode != 0:
        raise PeerUnavailable(f"fetching {NOTES_REF} from {remote!r} failed: "
                              f"{_first_line(done.stderr)}", field="remote", value=remote)
    report.fetched = True
    try:
        done = _git(root, env, "notes", f"--ref={NOTES_REF}", "merge", "--quiet",
                    "--strategy=cat_sort_uniq", INCOMING_REF)
        if done.returncode != 0:
            raise PeerUnavailable(f"merging the fetched notes failed: "
                                  f"{_first_line(done.stderr)}", field="remote", value=remote)
        report.merged = True
    finally:
        _git(root, env, "update-ref", "-d", INCOMING_REF)


def sync(root: Path, repo: pygit2.Repository, remote: str | None, *,
         push: bool = True) -> SyncReport:
    """Fetch, merge and (unless ``push`` is False) push the notes ref."""
    name = check_remote(repo, remote if remote is not None else default_remote(repo))
    report = SyncReport(remote=name)
    env = _env(root)
    report.local_had_notes = _has_ref(root, env, NOTES_REF)
    git = partial(_git, root, env)
    _exchange_maps(root, repo, name, git, report.maps, push=push)
    for _ in range(ROUNDS):
        report.rounds += 1
        fetch_notes(root, name, report, env)
        if not push or not _has_ref(root, env, NOTES_REF):
            return report
        done = _git(root, env, "push", "--quiet", "--no-verify", name,
                    f"{NOTES_REF}:{NOTES_REF}")
        if done.returncode == 0:
            report.pushed = True
            return report
        report.messages.append(_first_line(done.stderr))
    raise PeerUnavailable(
        f"pushing {NOTES_REF} to {name!r} was refused {ROUNDS} times (last: "
        f"{report.messages[-1]}); rerun `warpline sync` when the remote is quiet.",
        field="remote", value=name)
