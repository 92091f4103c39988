"""The loomweave edge source: read loomweave's own index, read-only, in a few queries.

Why read the SQLite index rather than call ``loomweave serve``: the index already holds
every entity, edge, confidence and SEI; four set-based queries over a read-only connection
capture httpx + jsonschema (~1,400 entities, ~2,000 edges) in tens of milliseconds, where
paging the MCP tools would take a process start and hundreds of round trips. We never
write to it (``mode=ro``), and we never mint or parse SEIs. See docs/notes-loomweave.md.

Liveness: loomweave keeps rows for code that no longer exists; an entity is live only when
its SEI binding says ``alive`` (``last_seen_commit`` is not reliable: incremental runs
skip unchanged files without touching it).

Edge kinds: ``calls`` and ``references`` are taken as given. loomweave records two more
dependencies as separate relations, and we fold them into ``references`` so both sources
describe the same graph: ``inherits_from`` (subclass → base, already referrer →
referenced) and ``decorates`` (decorator → decorated, reversed so the decorated entity is
the referrer).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sqlite3
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from warpline import settings
from warpline.errors import PeerUnavailable
from warpline.graph.model import EdgeCapture, EdgeKind, GraphEdge, GraphEntity, GraphEntityKind
from warpline.lang import RUST
from warpline.lang.locators import dotted_module, file_locator, module_locator, normalize_path

COMMAND_ENV = settings.LOOMWEAVE_COMMAND.name
INDEX_RELPATH = Path(".weft") / "loomweave" / "loomweave.db"
_VERSION_TIMEOUT_SECONDS = 10
_BATCH = 900  # stays under SQLite's historical 999 bound-parameter limit
_CONFIDENCE_RANK = {"resolved": 0, "inferred": 1, "ambiguous": 2}
_FIX_HINT = "run `loomweave analyze` in the repository to rebuild its index"

# loomweave edge kind -> (warpline kind, reversed?)
_EDGE_KINDS: dict[str, tuple[EdgeKind, bool]] = {
    "calls": ("calls", False),
    "references": ("references", False),
    "inherits_from": ("references", False),
    "decorates": ("references", True),
}

_LIVE_ENTITIES = """
SELECT e.id, e.kind, e.source_file_id, e.source_line_start, e.source_line_end,
       json_extract(e.properties, '$.parse_status'), b.sei
FROM entities AS e
JOIN sei_bindings AS b ON b.current_locator = e.id AND b.status = 'alive'
WHERE (e.plugin_id = 'python' AND e.kind IN ('module', 'class', 'function'))
   OR (e.plugin_id = 'rust' AND e.kind IN ({}))
   OR (e.plugin_id = 'core' AND e.kind = 'file')
""".format(", ".join(f"'{k}'" for k in sorted(RUST.kinds)))
_EDGES = "SELECT kind, from_id, to_id, confidence FROM edges WHERE kind IN ({})".format(
    ", ".join(f"'{k}'" for k in _EDGE_KINDS)
)
# Unresolved call sites of live callers, for the callers' current bodies only (older
# bodies' rows linger under their previous content hash).
_UNRESOLVED = """
SELECT COUNT(*) FROM entity_unresolved_call_sites AS u
JOIN entities AS e ON e.id = u.caller_entity_id AND e.content_hash = u.caller_content_hash
JOIN sei_bindings AS b ON b.current_locator = e.id AND b.status = 'alive'
"""
_DEGRADED = """
SELECT c.source_file_id, c.calls_status, c.calls_reason, c.references_status,
       c.references_reason
FROM source_file_resolution_coverage AS c
JOIN sei_bindings AS b ON b.current_locator = c.source_file_id AND b.status = 'alive'
WHERE c.calls_status = 'degraded' OR c.references_status = 'degraded'
"""
_ANALYZED_AT = ("SELECT analyzed_at_commit FROM runs WHERE status = 'completed' "
                "ORDER BY completed_at DESC LIMIT 1")
_PLUGIN_VERSION = "SELECT plugin_version FROM plugin_index_meta WHERE plugin_id = 'python'"


def index_path(repo_root: str | os.PathLike[str]) -> Path:
    return Path(repo_root) / INDEX_RELPATH


def _command(command: str | None) -> list[str]:
    return shlex.split(command if command is not None else settings.loomweave_command())


def _executable(command: str | None) -> str | None:
    argv = _command(command)
    return shutil.which(argv[0]) if argv else None


def loomweave_available(repo_root: str | os.PathLike[str], command: str | None = None) -> bool:
    """The index exists and the loomweave executable resolves (``command`` defaults to
    ``$WARPLINE_LOOMWEAVE_COMMAND``, then ``loomweave``)."""
    return index_path(repo_root).is_file() and _executable(command) is not None


def loomweave_version(command: str | None = None) -> str | None:
    """``1.6.1`` from ``loomweave --version``; ``None`` when it cannot be run."""
    argv = _command(command)
    if not argv or shutil.which(argv[0]) is None:
        return None
    try:
        completed = subprocess.run(
            [*argv, "--version"],
            capture_output=True,
            text=True,
            timeout=_VERSION_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\d+\.\d+\.\d+\S*", completed.stdout)
    return match.group(0) if completed.returncode == 0 and match else None


@contextmanager
def _read_only(repo_root: str | os.PathLike[str]) -> Iterator[sqlite3.Connection]:
    """A read-only connection; sqlite3 errors become ``PeerUnavailable`` here, at the seam."""
    path = index_path(repo_root).resolve()
    if not path.is_file():
        raise PeerUnavailable(
            f"no loomweave index at {path}; {_FIX_HINT}", details={"index": str(path)}
        )
    try:
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise PeerUnavailable(
            f"cannot open the loomweave index {path} ({exc}); {_FIX_HINT}",
            details={"index": str(path)},
        ) from exc
    try:
        yield connection
    except sqlite3.Error as exc:
        raise PeerUnavailable(
            f"cannot read the loomweave index {path} ({exc}); it may be from an "
            f"incompatible loomweave version: {_FIX_HINT}",
            details={"index": str(path)},
        ) from exc
    finally:
        connection.close()


def index_analyzed_commit(repo_root: str | os.PathLike[str]) -> str | None:
    """The commit loomweave's newest completed run analyzed (None when unknown: no index,
    an unreadable one, or no completed run)."""
    try:
        with _read_only(repo_root) as db:
            row = db.execute(_ANALYZED_AT).fetchone()
    except PeerUnavailable:
        return None
    return None if row is None or not row[0] else str(row[0])


def _check_rust(locator: str, kind: str, path: str, files: _Disk) -> str | None:
    """A Rust plugin's id fits the Rust row's dialect for its file: ``rust:<kind>:<the
    file's module>`` (docs/languages.md)."""
    module = RUST.module(path, files)
    if module is None or kind not in RUST.kinds:
        return "locator_dialect_mismatch"
    prefix = f"rust:{kind}:{module}"
    if locator == prefix or locator.startswith(prefix + "."):
        return None
    return "locator_dialect_mismatch"


class _Disk:
    """The work tree's manifests (loomweave indexes the work tree it analyzed)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._memo: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        if path not in self._memo:
            target = self.root / path
            try:
                self._memo[path] = target.read_bytes() if target.is_file() \
                    and not target.is_symlink() and target.stat().st_size <= 1 << 20 else None
            except OSError:
                self._memo[path] = None
        return self._memo[path]


def _check_locator(locator: str, kind: str, path: str) -> str | None:
    """Why ``locator`` does not fit warpline's dialect for a file at ``path``, or None.

    loomweave mints the same dialect (its plugin strips one ``src/``, collapses
    ``__init__``); checking guards against a future drift silently breaking joins.
    """
    if kind == "file":
        return None if locator == file_locator(path) else "locator_dialect_mismatch"
    dotted = dotted_module(path)
    if dotted is None:
        return "locator_dialect_mismatch"
    if kind == "module":
        return None if locator == module_locator(dotted) else "locator_dialect_mismatch"
    prefix = f"python:{kind}:{dotted}."
    if locator.startswith(prefix) and len(locator) > len(prefix):
        return None
    return "locator_dialect_mismatch"


def capture_from_loomweave(
    repo_root: str | os.PathLike[str], command: str | None = None
) -> EdgeCapture:
    """Every live entity and every calls/references edge between live entities."""
    with _read_only(repo_root) as db:
        rows = db.execute(_LIVE_ENTITIES).fetchall()
        edge_rows = db.execute(_EDGES).fetchall()
        unresolved = int(db.execute(_UNRESOLVED).fetchone()[0])
        degraded_rows = db.execute(_DEGRADED).fetchall()
        plugin = db.execute(_PLUGIN_VERSION).fetchone()

    entities: dict[str, GraphEntity] = {}
    failed: list[tuple[str, str]] = []
    disk = _Disk(Path(repo_root))
    for locator, kind, file_id, start, end, parse_status, sei in rows:
        # Paths come from the owning core:file id: entities.source_file_path is absolute
        # and goes stale when the checkout moves.
        raw = locator if kind == "file" else (file_id or "")
        path = normalize_path(raw.removeprefix("core:file:"))
        entity_kind: GraphEntityKind
        if locator.startswith("rust:"):
            entity_kind = RUST.wire_kind((kind, ""))
            problem = _check_rust(locator, kind, path, disk) if path else "no_source_file"
        else:
            entity_kind = kind
            problem = _check_locator(locator, entity_kind, path) if path else "no_source_file"
        if problem is not None:
            failed.append((locator, problem))
            continue
        if parse_status in ("syntax_error", "too_complex"):
            failed.append((locator, parse_status))
        entities[locator] = GraphEntity(locator, entity_kind, path, sei, start, end)

    best: dict[tuple[str, str, EdgeKind], str] = {}
    for lw_kind, from_id, to_id, confidence in edge_rows:
        kind, flip = _EDGE_KINDS[lw_kind]
        source, target = (to_id, from_id) if flip else (from_id, to_id)
        if source not in entities or target not in entities:
            continue  # an end is stale, or not code (subsystems)
        key = (source, target, kind)
        current = best.get(key)
        if current is None or _CONFIDENCE_RANK.get(confidence, 3) < _CONFIDENCE_RANK.get(
            current, 3
        ):
            best[key] = confidence

    degraded = []
    for file_id, calls_status, calls_reason, refs_status, refs_reason in degraded_rows:
        reasons = []
        if calls_status == "degraded":
            reasons.append(f"calls:{calls_reason or 'unknown'}")
        if refs_status == "degraded":
            reasons.append(f"references:{refs_reason or 'unknown'}")
        degraded.append((str(file_id).removeprefix("core:file:"), ",".join(reasons)))

    version = loomweave_version(command) or (f"index-{plugin[0]}" if plugin else "unknown")
    return EdgeCapture(
        source="loomweave",
        source_version=version,
        entities=tuple(entities[locator] for locator in sorted(entities)),
        edges=tuple(GraphEdge(s, t, k, c) for (s, t, k), c in sorted(best.items())),
        failed_entities=tuple(sorted(failed)),
        unresolved=unresolved,
        degraded_files=tuple(sorted(degraded)),
    )


def _batches(values: Iterable[str]) -> Iterator[list[str]]:
    unique = sorted(set(values))
    for start in range(0, len(unique), _BATCH):
        yield unique[start : start + _BATCH]


def resolve_seis(repo_root: str | os.PathLike[str], locators: Iterable[str]) -> dict[str, str]:
    """``locator -> SEI`` for the live entities among ``locators``; others are absent.

    Returns ``{}`` when the repository has no loomweave index (SEIs are enrichment).
    """
    return _lookup(repo_root, locators, "current_locator", "sei")


def resolve_locators(repo_root: str | os.PathLike[str], seis: Iterable[str]) -> dict[str, str]:
    """``SEI -> locator`` for the alive bindings among ``seis`` (the churn consumer sends
    SEIs warpline may not have stored yet)."""
    return _lookup(repo_root, seis, "sei", "current_locator")


def _lookup(
    repo_root: str | os.PathLike[str], keys: Iterable[str], key_column: str, value_column: str
) -> dict[str, str]:
    if not index_path(repo_root).is_file():
        return {}
    found: dict[str, str] = {}
    with _read_only(repo_root) as db:
        for batch in _batches(keys):
            marks = ", ".join("?" * len(batch))
            # Column names come from the two call sites above, never from input.
            query = (
                f"SELECT {key_column}, {value_column} FROM sei_bindings "
                f"WHERE status = 'alive' AND {key_column} IN ({marks})"
            )
            found.update(
                (k, v) for k, v in db.execute(query, batch) if k is not None and v is not None
            )
    return found
