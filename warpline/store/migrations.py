"""Named, recorded, forward-only migrations.

Each migration and its record in ``migrations`` commit in one transaction, and
``PRAGMA user_version`` always equals the highest applied version. A store whose
``user_version`` is above ``SCHEMA_VERSION`` was written by a newer warpline: this build
refuses to write it (``schema_ahead``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: the version it brings the store to, and its SQL."""
    version: int
    name: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "change_history",
        """
        CREATE TABLE migrations (
            version    INTEGER PRIMARY KEY,
            name       TEXT NOT NULL,
            applied_at INTEGER NOT NULL
        );
        CREATE TABLE store_meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE commits (
            id             INTEGER PRIMARY KEY,
            sha            TEXT NOT NULL UNIQUE,
            author_name    TEXT NOT NULL,
            author_email   TEXT NOT NULL,
            authored_at    INTEGER NOT NULL,
            committed_at   INTEGER NOT NULL,
            parent_count   INTEGER NOT NULL,
            event_count    INTEGER NOT NULL,
            unparsed_files TEXT NOT NULL,
            ingested_at    INTEGER NOT NULL
        );
        CREATE INDEX commits_by_time ON commits(committed_at);
        -- lineage: the id of the first entity of a rename chain. A timeline or a churn
        -- count follows the lineage, so history continues across renames.
        CREATE TABLE entities (
            id      INTEGER PRIMARY KEY,
            locator TEXT NOT NULL UNIQUE,
            kind    TEXT NOT NULL,
            path    TEXT NOT NULL,
            sei     TEXT,
            lineage INTEGER NOT NULL
        );
        CREATE INDEX entities_by_path ON entities(path);
        CREATE INDEX entities_by_sei ON entities(sei);
        CREATE INDEX entities_by_lineage ON entities(lineage);
        CREATE TABLE change_events (
            id               INTEGER PRIMARY KEY,
            commit_id        INTEGER NOT NULL REFERENCES commits(id),
            entity_id        INTEGER NOT NULL REFERENCES entities(id),
            change_kind      TEXT NOT NULL,
            path             TEXT NOT NULL,
            previous_locator TEXT,
            previous_path    TEXT,
            changed_at       INTEGER NOT NULL,
            UNIQUE (commit_id, entity_id)
        );
        CREATE INDEX change_events_by_entity ON change_events(entity_id, changed_at);
        CREATE INDEX change_events_by_time ON change_events(changed_at);
        CREATE TABLE ingest_failures (
            id        INTEGER PRIMARY KEY,
            sha       TEXT NOT NULL,
            error     TEXT NOT NULL,
            failed_at INTEGER NOT NULL
        );
        """,
    ),
    Migration(
        2,
        "edge_snapshots",
        """
        CREATE TABLE snapshots (
            id                  INTEGER PRIMARY KEY,
            commit_sha          TEXT NOT NULL,
            source              TEXT NOT NULL,
            source_version      TEXT NOT NULL,
            mode                TEXT NOT NULL,
            completeness        TEXT NOT NULL,
            entity_count        INTEGER NOT NULL,
            edge_count          INTEGER NOT NULL,
            failed_entities     TEXT NOT NULL,
            captured_at         INTEGER NOT NULL,
            idempotency_key     TEXT UNIQUE,
            request_fingerprint TEXT,
            result              TEXT
        );
        CREATE INDEX snapshots_by_commit ON snapshots(commit_sha);
        CREATE TABLE snapshot_entities (
            snapshot_id INTEGER NOT NULL REFERENCES snapshots(id),
            locator     TEXT NOT NULL,
            kind        TEXT NOT NULL,
            path        TEXT,
            sei         TEXT,
            start_line  INTEGER,
            end_line    INTEGER,
            PRIMARY KEY (snapshot_id, locator)
        ) WITHOUT ROWID;
        CREATE TABLE snapshot_edges (
            snapshot_id INTEGER NOT NULL REFERENCES snapshots(id),
            source      TEXT NOT NULL,
            target      TEXT NOT NULL,
            kind        TEXT NOT NULL,
            confidence  TEXT,
            PRIMARY KEY (snapshot_id, source, target, kind)
        ) WITHOUT ROWID;
        """,
    ),
    Migration(
        3,
        "verifications",
        """
        CREATE TABLE verifications (
            id          INTEGER PRIMARY KEY,
            commit_sha  TEXT NOT NULL,
            kind        TEXT NOT NULL,
            source      TEXT NOT NULL,
            actor       TEXT,
            verified_at INTEGER NOT NULL,
            UNIQUE (commit_sha, kind, source)
        );
        CREATE INDEX verifications_by_commit ON verifications(commit_sha);
        """,
    ),
    Migration(
        4,
        "test_maps",
        """
        -- A per-test execution map: which entities each test executed, recorded at a
        -- commit. Several maps are kept (queries choose the newest usable one).
        CREATE TABLE test_maps (
            id               INTEGER PRIMARY KEY,
            commit_sha       TEXT NOT NULL,
            source           TEXT NOT NULL,
            tracer_version   TEXT NOT NULL,
            rootdir          TEXT NOT NULL,
            dirty_paths      TEXT NOT NULL,
            test_count       INTEGER NOT NULL,
            entity_count     INTEGER NOT NULL,
            hit_count        INTEGER NOT NULL,
            failed_tests     INTEGER NOT NULL,
            unmapped_files   TEXT NOT NULL,
            collected        INTEGER NOT NULL,
            scope            TEXT NOT NULL,
            recorded_at      INTEGER NOT NULL
        );
        CREATE INDEX test_maps_by_commit ON test_maps(commit_sha);
        CREATE TABLE test_map_tests (
            map_id  INTEGER NOT NULL REFERENCES test_maps(id),
            test_no INTEGER NOT NULL,
            node_id TEXT NOT NULL,
            path    TEXT NOT NULL,
            outcome TEXT NOT NULL,
            PRIMARY KEY (map_id, test_no)
        ) WITHOUT ROWID;
        CREATE TABLE test_map_entities (
            map_id    INTEGER NOT NULL REFERENCES test_maps(id),
            entity_no INTEGER NOT NULL,
            locator   TEXT NOT NULL,
            path      TEXT NOT NULL,
            at_import INTEGER NOT NULL,
            PRIMARY KEY (map_id, entity_no),
            UNIQUE (map_id, locator)
        ) WITHOUT ROWID;
        CREATE TABLE test_map_hits (
            map_id    INTEGER NOT NULL REFERENCES test_maps(id),
            entity_no INTEGER NOT NULL,
            test_no   INTEGER NOT NULL,
            PRIMARY KEY (map_id, entity_no, test_no)
        ) WITHOUT ROWID;
        """,
    ),
    # 5: also_modified (a moved entity whose own text changed too, 0 for other kinds),
    # limits_hit (JSON list of limits a commit's attribution stopped at: rename_limit,
    # lineage_limit, named by answers covering the commit), reachable (1 while HEAD reaches
    # the commit as of store_meta reach_tip, rewritten-away commits are kept with 0 and
    # never counted or named) and topo (a topological position, parents first: the order of
    # lineage and churn, never timestamps).
    Migration(
        5,
        "lineage_and_reachability",
        """
        ALTER TABLE change_events ADD COLUMN also_modified INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE commits ADD COLUMN limits_hit TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE commits ADD COLUMN reachable INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE commits ADD COLUMN topo INTEGER;
        CREATE INDEX commits_by_reachable ON commits(reachable);
        """,
    ),
    # 9: lineage per event, not per entity row. ``change_events.lineage`` is the lineage an
    # event belongs to, fixed when it is written; ``entities.lineage`` becomes the lineage
    # the entity's NEXT event joins. ``lineages`` allocates lineage ids (seeded with every
    # entity id, the lineage ids of older stores) and records each lineage's ``holder``:
    # the entity that carries it now (the target of its latest move). A locator renamed
    # away and later added again (a new, unrelated definition reusing the name) starts a
    # new lineage, so it never joins the history of the name it was renamed to. Stores
    # written before keep their events' old lineages (``holder`` unknown: no split).
    Migration(
        9,
        "lineage_per_event",
        """
        ALTER TABLE change_events ADD COLUMN lineage INTEGER;
        UPDATE change_events SET lineage = (
            SELECT e.lineage FROM entities e WHERE e.id = change_events.entity_id);
        CREATE INDEX change_events_by_lineage ON change_events(lineage);
        CREATE TABLE lineages (
            id     INTEGER PRIMARY KEY,
            holder INTEGER
        );
        INSERT OR IGNORE INTO lineages (id) SELECT id FROM entities;
        INSERT OR IGNORE INTO lineages (id) SELECT DISTINCT lineage FROM entities;
        """,
    ),
    # What a recorded pass proved (``warpline.scope``): ``scope`` is the extent
    # (whole_suite | selection | attested), ``run`` the JSON facts of the run behind it;
    # rows written before are of unknown scope (NULL). ``run_receipts``: what each pytest
    # run the plugin saw did (commit, clean tree, counts, whole or selected), so a pass is
    # recorded only when a run on that commit backs it.
    Migration(
        10,
        "verification_scope_and_run_receipts",
        """
        ALTER TABLE verifications ADD COLUMN scope TEXT;
        ALTER TABLE verifications ADD COLUMN run TEXT;
        CREATE TABLE run_receipts (
            id          INTEGER PRIMARY KEY,
            commit_sha  TEXT,
            clean       INTEGER NOT NULL,
            exit_status INTEGER NOT NULL,
            finished_at INTEGER NOT NULL,
            facts       TEXT NOT NULL
        );
        CREATE INDEX run_receipts_by_commit ON run_receipts(commit_sha);
        """,
    ),
    # What a change means, per event (``warpline.git.nature``): ``code_same`` (1: the
    # definition's code is unchanged apart from comments, layout and docstrings),
    # ``docs_changed`` (its docstring or comments changed), ``signature_changed``. NULL:
    # not read — events written before (nature unknown: answers say so, never guess),
    # added/removed definitions, files, merges.
    Migration(
        11,
        "change_nature",
        """
        ALTER TABLE change_events ADD COLUMN code_same INTEGER;
        ALTER TABLE change_events ADD COLUMN docs_changed INTEGER;
        ALTER TABLE change_events ADD COLUMN signature_changed INTEGER;
        """,
    ),
    # Events first, facts when asked (``store/eventfacts.py``): an event whose facts are
    # still to read has ``facts_pending = 1`` (its nature unknown until an answer or the
    # background pass reads them). Events stored before keep 0: their facts were read
    # while they were walked, or never will be.
    Migration(
        12,
        "facts_on_demand",
        """
        ALTER TABLE change_events ADD COLUMN facts_pending INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX change_events_facts_pending ON change_events(commit_id)
            WHERE facts_pending = 1;
        """,
    ),
)

SCHEMA_VERSION: int = MIGRATIONS[-1].version
