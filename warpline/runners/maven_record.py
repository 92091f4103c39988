"""Recording a Java test map: the suite's classes found at HEAD, run one test at a time
under JaCoCo (``runners.maven_jacoco``), lines mapped to the walker's Java entities, stored as a
``warpline.testmap.v1`` map like Python's (``store.testmaps.write_map``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pygit2

from warpline.errors import InvalidArgument
from warpline.graph.builtin import capture_builtin
from warpline.runners import maven_jacoco, receipt_seal
from warpline.runners.maven_jacoco import (
    JACOCO_VERSION,
    SOURCE,
    JavaRecording,
    RecordFailed,
    entity_lines,
    source_at,
    test_id,
)
from warpline.runners.maven_rules import JavaProject
from warpline.runners.receipt import RunWatchState, head_sha, run_relevant_changes
from warpline.store.testmaps import RecordedMap

__all__ = ["java_map", "projects_at", "record", "record_map"]


def projects_at(repo: pygit2.Repository, commit: pygit2.Commit
                ) -> tuple[list[JavaProject], list[str]]:
    """The Java projects of ``commit`` and the classes their whole runs start from."""
    capture = capture_builtin(repo, commit)
    facts = (capture.discovery or {}).get("java") or {}
    projects = [JavaProject(p["directory"], p["tool"], tuple(p["test_roots"]),
                            tuple(p["main_roots"]), tuple(p["includes"]),
                            tuple(p["excludes"]), p["artifact"], p["wrapper"],
                            p["aggregator"], bool(p.get("assertions", True)))
                for p in facts.get("projects", [])]
    return projects, list(facts.get("suite_classes", []))


class _Lines:
    """``pkg/File.java`` (JaCoCo's source name) -> the repository file and its owners."""

    def __init__(self, repo: pygit2.Repository, commit: pygit2.Commit,
                 projects: list[JavaProject]) -> None:
        self.repo, self.commit = repo, commit
        self.roots = [r for p in projects for r in (*p.main_roots, *p.test_roots)]
        self.cache: dict[str, tuple[str, list[tuple[str, ...]]] | None] = {}
        self.unmapped: set[str] = set()

    def locators(self, files: dict[str, set[int]], paths: dict[str, str]) -> set[str]:
        out: set[str] = set()
        for name, lines in files.items():
            found = self._file(name)
            if found is None:
                self.unmapped.add(name)
                continue
            path, owners = found
            for line in lines:
                if 1 <= line <= len(owners):
                    for locator in owners[line - 1]:
                        out.add(locator)
                        paths.setdefault(locator, path)
        return out

    def _file(self, name: str) -> tuple[str, list[tuple[str, ...]]] | None:
        if name not in self.cache:
            self.cache[name] = None
            for root in self.roots:
                source = source_at(self.repo, self.commit, f"{root}{name}")
                owners = entity_lines(source, f"{root}{name}") if source is not None else None
                if owners is not None:
                    self.cache[name] = (f"{root}{name}", owners)
                    break
        return self.cache[name]


def to_map(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
           project: JavaProject, recording: JavaRecording,
           projects: list[JavaProject]) -> RecordedMap:
    lines = _Lines(repo, commit, projects)
    out = RecordedMap(commit_sha=str(commit.id), source=SOURCE,
                      tracer_version=f"jacoco-{JACOCO_VERSION}")
    between = {cls: lines.locators(files, out.entity_paths)
               for cls, files in recording.between.items()}
    for name, (outcome, files) in recording.tests.items():
        node_id = test_id(project, root, name)
        if node_id is None:
            continue
        hits = lines.locators(files, out.entity_paths)
        hits |= between.get(name.partition("#")[0], set())
        merged = out.hits.setdefault(node_id, set())
        merged |= hits
        previous = out.tests.get(node_id)
        worse = previous is not None and previous[1] == "failed"
        out.tests[node_id] = (node_id.split("::", 1)[0], "failed" if worse else outcome)
    tested = {name.partition("#")[0] for name in recording.tests}
    out.at_import = set().union(*(v for k, v in between.items() if k not in tested)) \
        if between else set()
    out.unmapped_files = sorted(lines.unmapped)
    return out


def java_map(root: Path, repo: pygit2.Repository) -> tuple[RecordedMap, JavaRecording]:
    """Record every Maven project's whole suite at HEAD (the work tree must be clean:
    the map describes the commit)."""
    commit = repo.head.peel(pygit2.Commit)
    projects, classes = projects_at(repo, commit)
    maven = [p for p in projects if p.tool == "maven" and not p.aggregator]
    if not maven:
        raise InvalidArgument("The repository has no Maven project (pom.xml) at HEAD to "
                              "record: warpline records JUnit tests run under Maven.",
                              field="runner", value="maven")
    combined: RecordedMap | None = None
    last = JavaRecording()
    with tempfile.TemporaryDirectory(prefix="warpline-jacoco-") as tmp:
        for project in maven:
            mine = [c for c in classes if _in(project, root, c)]
            if not mine:
                continue
            last = maven_jacoco.record(root, project, mine,
                                       Path(tmp) / (project.directory or "root"),
                                       assertions=project.assertions)
            recorded = to_map(root, repo, commit, project, last, projects)
            if combined is None:
                combined = recorded
            else:
                combined.tests.update(recorded.tests)
                combined.hits.update(recorded.hits)
                combined.entity_paths.update(recorded.entity_paths)
                combined.at_import |= recorded.at_import
    if combined is None:
        raise InvalidArgument("No test class of the suite was found at HEAD (Surefire's "
                              "includes select none): nothing to record.", field="runner",
                              value="maven")
    return combined, last


def record_map(root: Path, repo: pygit2.Repository
               ) -> tuple[RecordedMap, dict[str, str], float]:
    """The row's ``record``: the map, each test's outcome, the recording's seconds. A step
    that fails (the toolchain missing, the build failing) is ``invalid_argument`` naming
    the step and its output's tail."""
    try:
        recorded, recording = java_map(root, repo)
    except RecordFailed as failed:
        raise InvalidArgument(f"Recording the Java map failed at `{failed.step}`: "
                              f"{failed.detail[-600:]}", field="runner", value="maven",
                              details={"step": failed.step}) from failed
    outcomes = {test: outcome for test, (_, outcome) in recorded.tests.items()}
    return recorded, outcomes, recording.seconds


def record(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
           jobs: int) -> tuple[RecordedMap, RunWatchState, int]:
    """The row's ``record`` (``jobs`` unused: one JVM runs the classes one test at a time,
    each test's execution data taken after it): the map, the run's watch state (each
    test's outcome) and its exit status (1 when a test failed). What ran was the work tree:
    a map with run-relevant changes (the row's ``run_input``) describes no commit and never
    travels (``warpline sync``)."""
    from warpline.runners.maven import MAVEN

    state = RunWatchState(commit_at_start=head_sha(repo), key=receipt_seal.for_run(root))
    recorded, outcomes, _ = record_map(root, repo)
    recorded.dirty_paths = run_relevant_changes(repo, MAVEN.run_input)
    for test, outcome in outcomes.items():
        state.outcome(test, outcome)
    state.collected = len(outcomes)
    return recorded, state, 1 if "failed" in outcomes.values() else 0


def _in(project: JavaProject, root: Path, cls: str) -> bool:
    return test_id(project, root, cls) is not None
