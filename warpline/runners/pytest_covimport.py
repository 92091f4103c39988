"""``warpline import-coverage FILE``: a test map from a coverage.py data file users already
have, recorded with per-test contexts (``pytest --cov --cov-context=test``).

pytest-cov names contexts ``<node id>|setup``, ``|run`` and ``|teardown``: the three phases
of one test are one test here. The empty context (lines run at import and collection) is
kept as ``at_import``. Node ids are relative to the pytest rootdir the data was recorded
from (``rootdir``, repo-relative, default the repository root). Measured paths are
resolved against the repository root; a path recorded on another machine (a CI runner's
checkout) is matched by its longest suffix that names a file of the commit.

Lines are mapped to entities with the sources of ``commit`` (default HEAD), the commit the
data describes; a file absent from it is read from the working tree.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pygit2

from warpline.errors import InvalidArgument
from warpline.lang.locators import is_python_path
from warpline.runners.pytest_coverage import IMPORT_CONTEXT, recording_from_lines
from warpline.store.testmaps import RecordedMap
from warpline.testmap.entitymap import EntityMapper

SOURCE = "coverage-import"
_PHASES = ("|setup", "|run", "|teardown")


class _SuffixMapper(EntityMapper):
    """Also accepts measured paths from another checkout, by their path suffix."""

    tracked: set[str] | None = None

    def relative(self, filename: str) -> str | None:
        found = EntityMapper.relative(self, filename)
        if found is not None:
            return found
        if self.tracked is None:
            self.tracked = _tracked(self.commit)
        parts = Path(filename).as_posix().split("/")
        for start in range(1, len(parts)):
            candidate = "/".join(parts[start:])
            if candidate in self.tracked:
                return candidate
        return None


def _tracked(commit: pygit2.Commit | None) -> set[str]:
    out: set[str] = set()
    if commit is None:
        return out
    stack: list[tuple[str, pygit2.Tree]] = [("", commit.tree)]
    while stack:
        prefix, tree = stack.pop()
        for entry in tree:
            path = prefix + str(entry.name)
            if isinstance(entry, pygit2.Tree):
                stack.append((path + "/", entry))
            elif is_python_path(path):
                out.add(path)
    return out


def test_of(context: str) -> str:
    for phase in _PHASES:
        if context.endswith(phase):
            return context[: -len(phase)]
    return context


def read_lines(data_file: Path) -> tuple[dict[str, dict[str, set[int]]], str]:
    """context (test node id) -> measured file -> lines, and the coverage.py version."""
    import coverage
    from coverage.data import CoverageData

    if not data_file.is_file():
        raise InvalidArgument(
            f"No coverage data file at {data_file}. Record one with `pytest --cov=. "
            "--cov-context=test` (it writes .coverage), then import it.",
            field="coverage_file", value=str(data_file))
    data = CoverageData(basename=str(data_file))
    try:
        data.read()
        files = sorted(data.measured_files())
        contexts = data.measured_contexts()
    except (coverage.CoverageException, sqlite3.Error) as exc:
        raise InvalidArgument(
            f"{data_file} is not a coverage.py data file ({exc}). Pass the .coverage file "
            "pytest-cov or `coverage run` wrote.", field="coverage_file",
            value=str(data_file)) from exc
    if not (contexts - {IMPORT_CONTEXT}):
        raise InvalidArgument(
            f"{data_file} was recorded without per-test contexts, so it cannot say which "
            "test ran what. Record it again with `pytest --cov=. --cov-context=test`.",
            field="coverage_file", value=str(data_file))
    out: dict[str, dict[str, set[int]]] = {}
    for filename in files:
        for line, names in data.contexts_by_lineno(filename).items():
            for name in names:
                out.setdefault(test_of(name), {}).setdefault(filename, set()).add(line)
    return out, f"coverage.py {coverage.__version__}"


def recorded_map(root: Path, repo: pygit2.Repository, commit: pygit2.Commit, data_file: Path,
                 rootdir: str = "") -> RecordedMap:
    """The map a coverage.py data file holds (the pytest row's ``import_map``)."""
    lines, version = read_lines(data_file)
    rootdir = rootdir.strip("/").removeprefix("./") if rootdir not in (".", "./") else ""
    if rootdir:
        lines = {(context if context == IMPORT_CONTEXT else f"{rootdir}/{context}"): files
                 for context, files in lines.items()}
    mapper = _SuffixMapper(root, repo, commit, prefer_worktree=False)
    recording = recording_from_lines(mapper, lines)
    recorded = recording.to_map(str(commit.id), SOURCE, version, rootdir, None, [])
    recorded.dirty_paths = []  # sources come from the commit, not the work tree
    return recorded

