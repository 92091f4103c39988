"""Recording a test map with coverage.py: one dynamic context per test, no pytest here.

``Recorder`` drives the tracer (coverage's C tracer, ``sys.monitoring`` on 3.12+): the
hooks call ``begin_test``/``end_test`` around each test's whole protocol (setup, call,
teardown, so fixtures injected by name count for the test) and ``begin_shared`` around
the set-up of a fixture wider than one test, whose executed lines then count for every
test that uses it (a session fixture runs once but every user depends on it, in any
process of an xdist run). Lines run outside every test (imports, collection) are kept
as ``at_import``: module-level code belongs to the module entity and is not lost.

``Recording`` is the process-independent result (plain data: an xdist worker sends it to
the controller as JSON), and ``to_map`` turns recordings into a ``RecordedMap``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2

from warpline.store.testmaps import RecordedMap
from warpline.testmap.entitymap import EntityMapper

IMPORT_CONTEXT = ""
_SHARED = "warpline-shared:"


@dataclass(slots=True)
class Recording:
    """Per-test executed entities, as plain data."""

    hits: dict[str, set[str]] = field(default_factory=dict)  # node id -> locators
    outcomes: dict[str, str] = field(default_factory=dict)
    entity_paths: dict[str, str] = field(default_factory=dict)
    at_import: set[str] = field(default_factory=set)
    dirty_paths: set[str] = field(default_factory=set)
    unmapped: set[str] = field(default_factory=set)

    def merge(self, other: Recording) -> None:
        for node_id, locators in other.hits.items():
            self.hits.setdefault(node_id, set()).update(locators)
        self.outcomes.update(other.outcomes)
        self.entity_paths.update(other.entity_paths)
        self.at_import |= other.at_import
        self.dirty_paths |= other.dirty_paths
        self.unmapped |= other.unmapped

    def to_json(self) -> str:
        return json.dumps({
            "hits": {k: sorted(v) for k, v in self.hits.items()},
            "outcomes": self.outcomes, "entity_paths": self.entity_paths,
            "at_import": sorted(self.at_import), "dirty_paths": sorted(self.dirty_paths),
            "unmapped": sorted(self.unmapped)})

    @classmethod
    def from_json(cls, text: str) -> Recording:
        raw: dict[str, Any] = json.loads(text)
        return cls({k: set(v) for k, v in raw["hits"].items()}, dict(raw["outcomes"]),
                   dict(raw["entity_paths"]), set(raw["at_import"]), set(raw["dirty_paths"]),
                   set(raw["unmapped"]))

    def to_map(self, commit_sha: str, source: str, tracer_version: str, rootdir: str,
               collected: int | None, partial: list[str]) -> RecordedMap:
        tests = {node_id: (node_id.split("::", 1)[0], self.outcomes.get(node_id, "unknown"))
                 for node_id in self.hits.keys() | self.outcomes.keys()}
        return RecordedMap(commit_sha=commit_sha, source=source, tracer_version=tracer_version,
                           rootdir=rootdir, dirty_paths=sorted(self.dirty_paths), tests=tests,
                           entity_paths=dict(self.entity_paths), at_import=set(self.at_import),
                           hits={k: set(v) for k, v in self.hits.items()},
                           unmapped_files=sorted(self.unmapped), collected=collected,
                           partial=partial)


def recording_from_lines(mapper: EntityMapper,
                         lines: dict[str, dict[str, set[int]]],
                         shared_of: dict[str, set[str]] | None = None) -> Recording:
    """``lines``: context -> measured file -> executed lines. Contexts are node ids (repo
    relative), ``IMPORT_CONTEXT``, or shared-fixture contexts named in ``shared_of``
    (node id -> the shared contexts it used)."""
    out = Recording()
    per_context: dict[str, set[str]] = {}
    for context, files in lines.items():
        locators: set[str] = set()
        for filename, executed in files.items():
            path = mapper.relative(filename)
            if path is None:
                continue
            file_map = mapper.file_map(path)
            if file_map is None:
                continue
            found = file_map.locators(executed)
            for locator in found:
                out.entity_paths[locator] = path
            locators |= found
        per_context[context] = locators
    out.at_import = per_context.pop(IMPORT_CONTEXT, set())
    shared = {k: v for k, v in per_context.items() if k.startswith(_SHARED)}
    for node_id, locators in per_context.items():
        if node_id.startswith(_SHARED):
            continue
        combined = set(locators)
        for context in (shared_of or {}).get(node_id, ()):
            combined |= shared.get(context, set())
        out.hits[node_id] = combined
    for node_id in (shared_of or {}):
        if node_id not in out.hits:
            out.hits[node_id] = set().union(*(shared.get(c, set())
                                              for c in (shared_of or {})[node_id]))
    out.dirty_paths = set(mapper.dirty_paths)
    out.unmapped = set(mapper.unmapped)
    return out


def shared_context(name: str) -> str:
    return _SHARED + name


class Recorder:
    """coverage.py with per-test dynamic contexts over the repository's files."""

    def __init__(self, root: Path) -> None:
        import coverage

        self.root = root
        self.version = f"coverage.py {coverage.__version__}"
        # data_file=None: nothing is written to disk; config_file=False: the project's own
        # coverage settings (omit lists, plugins) are data we do not execute.
        self._cov = coverage.Coverage(data_file=None, config_file=False,
                                      source=[str(root)], branch=False)
        self._context = IMPORT_CONTEXT
        self._stack: list[str] = []
        self.shared_of: dict[str, set[str]] = {}
        self.outcomes: dict[str, str] = {}
        self.started = False

    @staticmethod
    def another_tracer_running() -> bool:
        import coverage

        return coverage.Coverage.current() is not None

    def start(self) -> None:
        self._cov.start()
        self.started = True

    def _switch(self, context: str) -> None:
        if self.started and context != self._context:
            self._cov.switch_context(context)
        self._context = context

    def begin_test(self, node_id: str) -> None:
        self._stack = []
        self._switch(node_id)
        self.outcomes.setdefault(node_id, "unknown")

    def end_test(self) -> None:
        self._stack = []
        self._switch(IMPORT_CONTEXT)

    def begin_shared(self, name: str) -> None:
        self._stack.append(self._context)
        self._switch(shared_context(name))

    def end_shared(self) -> None:
        self._switch(self._stack.pop() if self._stack else IMPORT_CONTEXT)

    def uses_shared(self, node_id: str, names: set[str]) -> None:
        self.shared_of.setdefault(node_id, set()).update(shared_context(n) for n in names)

    def outcome(self, node_id: str, outcome: str) -> None:
        """A test's outcome; a failure in any phase sticks."""
        if self.outcomes.get(node_id) != "failed":
            self.outcomes[node_id] = outcome

    def stop(self) -> dict[str, dict[str, set[int]]]:
        """Stop tracing; context -> file -> executed lines."""
        if self.started:
            self._cov.stop()
            self.started = False
        data = self._cov.get_data()
        out: dict[str, dict[str, set[int]]] = {}
        for filename in data.measured_files():
            for line, contexts in data.contexts_by_lineno(filename).items():
                for context in contexts:
                    out.setdefault(context, {}).setdefault(filename, set()).add(line)
        return out

    def finish(self, repo: pygit2.Repository, commit: pygit2.Commit | None) -> Recording:
        lines = self.stop()
        mapper = EntityMapper(self.root, repo, commit)
        recording = recording_from_lines(mapper, lines, self.shared_of)
        for node_id, outcome in self.outcomes.items():
            recording.outcomes[node_id] = outcome
            recording.hits.setdefault(node_id, set())
        return recording
