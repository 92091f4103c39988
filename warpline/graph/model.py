"""What an edge source produces: plain, immutable facts about one code graph.

Both sources (``loomweave_source``, ``builtin``) return an ``EdgeCapture``; the
store persists it and ``graph`` turns it into a networkx graph. Nothing here knows about
SQLite, git or the wire.

Edges keep the indexer's direction (DESIGN §5): ``calls`` is caller → callee and
``references`` is referrer → referenced. "Downstream" is computed by walking them backwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EdgeKind = Literal["calls", "references"]
EdgeSourceName = Literal["loomweave", "builtin"]
GraphEntityKind = Literal["file", "module", "class", "function"]


@dataclass(frozen=True, slots=True)
class GraphEntity:
    """One node of the graph, keyed by its locator (DESIGN §3).

    ``path`` is repo-relative with ``/`` separators. ``sei`` is loomweave's opaque
    ``loomweave:eid:…`` and stays ``None`` for the built-in source. Line numbers are
    1-based and inclusive; a definition starts at its first decorator line.
    """

    locator: str
    kind: GraphEntityKind
    path: str
    sei: str | None
    start_line: int | None
    end_line: int | None


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """A dependency edge between two captured entities.

    ``confidence`` is the source's own word for it: loomweave gives ``resolved``,
    ``ambiguous`` or ``inferred``; the built-in extractor says ``resolved``, or
    ``candidate`` for a TS/JS method call on a value of unknown type linked to each of the
    few repository methods of that name (never a certain edge).
    """

    source_locator: str
    target_locator: str
    kind: EdgeKind
    confidence: str | None


@dataclass(frozen=True, slots=True)
class EdgeCapture:
    """Everything one source captured, in deterministic order.

    ``failed_entities`` are ``(locator, reason)`` pairs for entities the source knows
    exist but could not capture faithfully (a file that does not parse, an id that does
    not fit the locator dialect); a capture with any is a ``DELTA``, never ``FULL``.
    ``unresolved`` counts call sites whose target could not be resolved: no edge was
    invented for them. ``degraded_files`` are ``(path, reason)`` pairs for files whose
    call/reference resolution the source itself reports as incomplete (loomweave's
    ``source_file_resolution_coverage``); their entities are captured, their edges may be
    a floor.

    ``discovery`` is what the built-in extractor learnt about the tests (JSON-ready):
    ``rules`` (the project's pytest collection rules) and ``test_imports`` (test file ->
    the repository modules it imports, re-exports followed). ``origins`` says which
    source gave what when a capture merges two (``{source: {"entities", "edges",
    "unresolved"}}``); empty for a single source.
    """

    source: EdgeSourceName
    source_version: str
    entities: tuple[GraphEntity, ...]
    edges: tuple[GraphEdge, ...]
    failed_entities: tuple[tuple[str, str], ...] = ()
    unresolved: int = 0
    degraded_files: tuple[tuple[str, str], ...] = field(default=())
    discovery: dict[str, Any] | None = None
    origins: dict[str, dict[str, int]] = field(default_factory=dict)
