"""The walker's events of one commit, for the languages' fixture tests (Rust, Go, Java,
TypeScript/JavaScript): entity events only, keyed by locator; with the facts of what each
change means read as an answer reads them for a stored event (``git/eventfacts.py``)."""

from __future__ import annotations

from dataclasses import replace

from tests.gitfixture import FixtureRepo
from warpline.git.attribution import commit_changes
from warpline.git.eventfacts import FactReader
from warpline.git.events import CommitChanges
from warpline.git.repo import open_repo, resolve_commit

Event = tuple[str, str, str | None]  # change kind, wire kind, previous locator


def changes(repo: FixtureRepo, sha: str) -> CommitChanges:
    handle = open_repo(repo.path)
    found = commit_changes(handle, resolve_commit(handle, sha))
    asked = [c for c in found.changes
             if c.kind != "file" and c.change_kind in ("modified", "moved")]
    facts = dict(zip([id(c) for c in asked],
                     FactReader(handle).facts(found.commit.sha, asked), strict=True))
    return replace(found, changes=tuple(replace(c, facts=facts.get(id(c)))
                                        for c in found.changes))


def events(found: CommitChanges) -> dict[str, Event]:
    return {c.locator: (c.change_kind, c.kind, c.previous_locator) for c in found.changes
            if not c.locator.startswith("core:")}
