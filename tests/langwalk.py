"""The walker's events of one commit, for the languages' fixture tests (Rust, Go, Java,
TypeScript/JavaScript): entity events only, keyed by locator."""

from __future__ import annotations

from tests.gitfixture import FixtureRepo
from warpline.git.attribution import commit_changes
from warpline.git.events import CommitChanges
from warpline.git.repo import open_repo, resolve_commit

Event = tuple[str, str, str | None]  # change kind, wire kind, previous locator


def changes(repo: FixtureRepo, sha: str) -> CommitChanges:
    handle = open_repo(repo.path)
    return commit_changes(handle, resolve_commit(handle, sha))


def events(found: CommitChanges) -> dict[str, Event]:
    return {c.locator: (c.change_kind, c.kind, c.previous_locator) for c in found.changes
            if not c.locator.startswith("core:")}
