"""The test-map tables (migration 4): per-test executed entities, recorded at a commit.

A map is written whole in one transaction (a reader never sees half of one). Its tests and
entities are numbered within the map, so a hit is three integers. Several maps are kept
(the newest ``KEEP_MAPS`` of this clone's, and apart the newest ``KEEP_MAPS`` fetched from a
remote); ``warpline.service.shared.choice`` picks the one a query uses.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from warpline.store.db import Store

KEEP_MAPS = 8
IMPORTED_KEY = "imported_maps"  # store_meta: ids of the maps fetched from a remote
_CHUNK = 900


@dataclass(slots=True)
class RecordedMap:
    """What a recording (the pytest plugin or an imported coverage file) produced.

    ``hits`` maps a test's node id (repo-root relative) to the locators it executed;
    ``at_import`` holds the module entities whose code ran outside any test (at import
    or collection time), so they are known to the map even when no test ran them."""

    commit_sha: str
    source: str
    tracer_version: str
    rootdir: str = ""
    dirty_paths: list[str] = field(default_factory=list)
    tests: dict[str, tuple[str, str]] = field(default_factory=dict)  # node id -> path, outcome
    entity_paths: dict[str, str] = field(default_factory=dict)  # locator -> path
    at_import: set[str] = field(default_factory=set)
    hits: dict[str, set[str]] = field(default_factory=dict)
    unmapped_files: list[str] = field(default_factory=list)
    collected: int | None = None  # tests pytest collected (None: unknown, e.g. an import)
    partial: list[str] = field(default_factory=list)  # why the run was not the whole suite

    def failed_tests(self) -> int:
        return sum(1 for _, outcome in self.tests.values() if outcome == "failed")


@dataclass(frozen=True, slots=True)
class MapRow:
    """A stored test map: its commit, tracer, root and the paths that were dirty."""
    id: int
    commit_sha: str
    source: str
    tracer_version: str
    rootdir: str
    dirty_paths: list[str]
    test_count: int
    entity_count: int
    hit_count: int
    failed_tests: int
    unmapped_files: list[str]
    collected: int
    partial: list[str]
    recorded_at: int


_COLUMNS = ("id, commit_sha, source, tracer_version, rootdir, dirty_paths, test_count, "
            "entity_count, hit_count, failed_tests, unmapped_files, collected, scope, recorded_at")


def _row(values: tuple[object, ...]) -> MapRow:
    (id_, sha, source, version, rootdir, dirty, tests, entities, hits, failed, unmapped,
     collected, scope, recorded) = values
    return MapRow(int(str(id_)), str(sha), str(source), str(version), str(rootdir),
                  list(json.loads(str(dirty))), int(str(tests)), int(str(entities)),
                  int(str(hits)), int(str(failed)), list(json.loads(str(unmapped))),
                  int(str(collected)), list(json.loads(str(scope))), int(str(recorded)))


def write_map(store: Store, recorded: RecordedMap, now: int | None = None, *,
              imported: bool = False) -> MapRow:
    """Store ``recorded`` as a new map (one transaction); prune beyond ``KEEP_MAPS``.
    ``imported``: a map fetched from a remote (``warpline sync``): it competes for room
    only with other imported maps, so a remote's maps (and its ``recorded_at``, a claim)
    never evict this clone's own."""
    locators = sorted(set(recorded.entity_paths) | recorded.at_import
                      | {loc for locs in recorded.hits.values() for loc in locs})
    entity_no = {loc: n for n, loc in enumerate(locators)}
    node_ids = sorted(recorded.tests.keys() | recorded.hits.keys())
    hit_count = sum(len(v) for v in recorded.hits.values())
    stamp = int(time.time()) if now is None else now
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO test_maps (commit_sha, source, tracer_version, rootdir, dirty_paths, "
            "test_count, entity_count, hit_count, failed_tests, unmapped_files, collected, scope, "
            "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (recorded.commit_sha, recorded.source, recorded.tracer_version, recorded.rootdir,
             json.dumps(sorted(recorded.dirty_paths)), len(node_ids), len(locators),
             hit_count, recorded.failed_tests(),
             json.dumps(sorted(recorded.unmapped_files)),
             len(node_ids) if recorded.collected is None else recorded.collected,
             json.dumps(recorded.partial), stamp))
        map_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT INTO test_map_tests (map_id, test_no, node_id, path, outcome) "
            "VALUES (?, ?, ?, ?, ?)",
            ((map_id, n, node_id, *recorded.tests.get(node_id, (_path_of(node_id), "unknown")))
             for n, node_id in enumerate(node_ids)))
        conn.executemany(
            "INSERT INTO test_map_entities (map_id, entity_no, locator, path, at_import) "
            "VALUES (?, ?, ?, ?, ?)",
            ((map_id, n, loc, recorded.entity_paths.get(loc, ""), int(loc in recorded.at_import))
             for loc, n in entity_no.items()))
        conn.executemany(
            "INSERT INTO test_map_hits (map_id, entity_no, test_no) VALUES (?, ?, ?)",
            ((map_id, entity_no[loc], test_no)
             for test_no, node_id in enumerate(node_ids)
             for loc in sorted(recorded.hits.get(node_id, ()))))
        _prune(conn, map_id if imported else None)
        row = conn.execute(f"SELECT {_COLUMNS} FROM test_maps WHERE id = ?",
                           (map_id,)).fetchone()
    return _row(tuple(row))


def _path_of(node_id: str) -> str:
    return node_id.split("::", 1)[0]


def _prune(conn: sqlite3.Connection, new_import: int | None) -> None:
    """Keep the newest ``KEEP_MAPS`` local maps and, apart, the newest ``KEEP_MAPS``
    imported ones (their ids under ``IMPORTED_KEY``)."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = ?", (IMPORTED_KEY,)).fetchone()
    try:
        held = {int(i) for i in json.loads(str(row[0]))} if row and row[0] else set()
    except (ValueError, TypeError):
        held = set()
    if new_import is not None:
        held.add(new_import)
    ids = [int(r[0]) for r in conn.execute(
        "SELECT id FROM test_maps ORDER BY recorded_at DESC, id DESC")]
    local = [i for i in ids if i not in held]
    imported = [i for i in ids if i in held]
    for map_id in local[KEEP_MAPS:] + imported[KEEP_MAPS:]:
        for table in ("test_map_hits", "test_map_entities", "test_map_tests"):
            conn.execute(f"DELETE FROM {table} WHERE map_id = ?", (map_id,))
        conn.execute("DELETE FROM test_maps WHERE id = ?", (map_id,))
    conn.execute("INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO "
                 "UPDATE SET value = excluded.value",
                 (IMPORTED_KEY, json.dumps(sorted(imported[:KEEP_MAPS]))))


def maps(store: Store) -> list[MapRow]:
    """Every stored map, newest first."""
    conn = store.conn
    return [_row(tuple(r)) for r in conn.execute(
        f"SELECT {_COLUMNS} FROM test_maps ORDER BY recorded_at DESC, id DESC")]


def _chunks(values: list[str]) -> Iterable[list[str]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]


def known_entities(store: Store, map_id: int,
                   locators: Iterable[str]) -> dict[str, bool]:
    """Of ``locators``, those the map saw executed: locator -> ran at import time."""
    conn = store.conn
    out: dict[str, bool] = {}
    for chunk in _chunks(sorted(set(locators))):
        marks = ",".join("?" * len(chunk))
        for locator, at_import in conn.execute(
                "SELECT locator, at_import FROM test_map_entities WHERE map_id = ? "
                f"AND locator IN ({marks})", (map_id, *chunk)):
            out[str(locator)] = bool(at_import)
    return out


def tests_executing(store: Store, map_id: int,
                    locators: Iterable[str]) -> dict[str, list[str]]:
    """locator -> the node ids of the tests that executed it (sorted)."""
    conn = store.conn
    out: dict[str, list[str]] = {}
    for chunk in _chunks(sorted(set(locators))):
        marks = ",".join("?" * len(chunk))
        for locator, node_id in conn.execute(
                "SELECT e.locator, t.node_id FROM test_map_entities e "
                "JOIN test_map_hits h ON h.map_id = e.map_id AND h.entity_no = e.entity_no "
                "JOIN test_map_tests t ON t.map_id = h.map_id AND t.test_no = h.test_no "
                f"WHERE e.map_id = ? AND e.locator IN ({marks}) ORDER BY t.node_id",
                (map_id, *chunk)):
            out.setdefault(str(locator), []).append(str(node_id))
    return out


def test_counts(store: Store, map_id: int,
                locators: Iterable[str]) -> dict[str, int]:
    """Of ``locators``, those the map holds: locator -> how many tests executed it (0 for
    an entity only run at import time)."""
    conn = store.conn
    out: dict[str, int] = {}
    for chunk in _chunks(sorted(set(locators))):
        marks = ",".join("?" * len(chunk))
        for locator, count in conn.execute(
                "SELECT e.locator, COUNT(h.test_no) FROM test_map_entities e "
                "LEFT JOIN test_map_hits h ON h.map_id = e.map_id AND h.entity_no = e.entity_no "
                f"WHERE e.map_id = ? AND e.locator IN ({marks}) GROUP BY e.locator",
                (map_id, *chunk)):
            out[str(locator)] = int(count)
    return out


def map_tests(store: Store, map_id: int) -> list[tuple[str, str]]:
    """(node id, test file path) of every test in the map."""
    conn = store.conn
    return [(str(n), str(p)) for n, p in conn.execute(
        "SELECT node_id, path FROM test_map_tests WHERE map_id = ? ORDER BY test_no",
        (map_id,))]


def hits_by_test(store: Store, map_id: int) -> dict[str, set[str]]:
    """node id -> executed locators: the whole map (for comparisons and export)."""
    conn = store.conn
    out: dict[str, set[str]] = {}
    for node_id, locator in conn.execute(
            "SELECT t.node_id, e.locator FROM test_map_hits h "
            "JOIN test_map_tests t ON t.map_id = h.map_id AND t.test_no = h.test_no "
            "JOIN test_map_entities e ON e.map_id = h.map_id AND e.entity_no = h.entity_no "
            "WHERE h.map_id = ?", (map_id,)):
        out.setdefault(str(node_id), set()).add(str(locator))
    for node_id, _ in map_tests(store, map_id):
        out.setdefault(node_id, set())
    return out


def read_map(store: Store, row: MapRow) -> RecordedMap:
    """The whole stored map ``row`` as a ``RecordedMap`` (to send it elsewhere)."""
    conn = store.conn
    recorded = RecordedMap(row.commit_sha, row.source, row.tracer_version, row.rootdir,
                           dirty_paths=list(row.dirty_paths), collected=row.collected,
                           unmapped_files=list(row.unmapped_files), partial=list(row.partial))
    for node_id, path, outcome in conn.execute(
            "SELECT node_id, path, outcome FROM test_map_tests WHERE map_id = ?", (row.id,)):
        recorded.tests[str(node_id)] = (str(path), str(outcome))
    for locator, path, at_import in conn.execute(
            "SELECT locator, path, at_import FROM test_map_entities WHERE map_id = ?",
            (row.id,)):
        recorded.entity_paths[str(locator)] = str(path)
        if at_import:
            recorded.at_import.add(str(locator))
    recorded.hits = {node: locs for node, locs in hits_by_test(store, row.id).items() if locs}
    return recorded
