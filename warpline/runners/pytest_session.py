"""Recording a map from a pytest run, without pytest: the work behind the plugin's hooks.

``RecordSession`` owns one ``Recorder`` in a process that runs tests (a plain run or an
xdist worker) and merges workers' recordings in the xdist controller; ``finish`` writes
one map to the store. (Selection is the service's: ``warpline.service.testing.select_plan``;
the run's receipt: ``warpline.runners.receipt``.) Node ids here are repo-root relative (pytest's are
relative to its rootdir: ``repo_id`` converts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from warpline import settings
from warpline.errors import WarplineError
from warpline.runners.pytest_coverage import Recorder, Recording
from warpline.store.testmaps import MapRow, write_map

RECORD_ENV = "WARPLINE_RECORD"
SOURCE = "pytest-plugin"


def record_requested(flag: bool) -> bool:
    """``--warpline-record``, or ``WARPLINE_RECORD=1`` in the environment."""
    return flag or settings.record_test_map()


@dataclass(slots=True)
class Where:
    """The repository a pytest run belongs to, and its rootdir inside it."""

    root: Path
    repo: pygit2.Repository
    rootdir: str  # repo-relative, "" for the repository root

    @classmethod
    def find(cls, rootpath: Path) -> Where | None:
        found = pygit2.discover_repository(str(rootpath))
        if found is None:
            return None
        repo = pygit2.Repository(found)
        if repo.workdir is None:
            return None
        root = Path(repo.workdir).resolve()
        try:
            rel = rootpath.resolve().relative_to(root).as_posix()
        except ValueError:
            return None
        return cls(root, repo, "" if rel == "." else rel)

    def repo_id(self, nodeid: str) -> str:
        return f"{self.rootdir}/{nodeid}" if self.rootdir else nodeid

    def head(self) -> pygit2.Commit | None:
        if self.repo.head_is_unborn:
            return None
        return self.repo.head.peel(pygit2.Commit)


@dataclass(slots=True)
class RecordSession:
    """One recording of a test map across the pytest session and its workers."""
    where: Where
    recorder: Recorder | None = None
    merged: Recording = field(default_factory=Recording)
    workers: int = 0

    @classmethod
    def start(cls, where: Where) -> RecordSession:
        session = cls(where, Recorder(where.root))
        assert session.recorder is not None
        session.recorder.start()
        return session

    def as_controller(self) -> None:
        """An xdist controller runs no test: drop the tracer, merge what workers send."""
        if self.recorder is not None:
            self.recorder.stop()
            self.recorder = None

    def worker_done(self, payload: str) -> None:
        self.merged.merge(Recording.from_json(payload))
        self.workers += 1

    def local_recording(self) -> Recording | None:
        if self.recorder is None:
            return None
        recording = self.recorder.finish(self.where.repo, self.where.head())
        self.recorder = None
        return recording

    def finish(self, collected: int | None, partial: list[str]) -> MapRow:
        """Write the map (this process's recording plus the workers'); raises
        ``WarplineError`` when the store cannot take it."""
        from warpline.store.db import Store

        local = self.local_recording()
        if local is not None:
            self.merged.merge(local)
        head = self.where.head()
        if head is None:
            raise _no_commit()
        import coverage

        recorded = self.merged.to_map(str(head.id), SOURCE, f"coverage.py {coverage.__version__}",
                                      self.where.rootdir, collected, partial)
        with Store.open(self.where.root) as store:
            return write_map(store, recorded)


def _no_commit() -> WarplineError:
    from warpline.errors import InvalidRepo

    return InvalidRepo("The repository has no commit yet: a test map is recorded at a "
                       "commit. Commit first, then record.", field="repo")
