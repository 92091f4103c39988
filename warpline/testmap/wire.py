"""A test map as bytes that travel with git, and back — read as untrusted data.

One map is one zlib-compressed JSON document (``warpline.testmap.v1``):

    {"schema": "warpline.testmap.v1", "commit": SHA, "source": ..., "tracer_version": ...,
     "rootdir": ..., "collected": N, "recorded_at": UNIX, "partial": [...],
     "tests": [[node_id, path, outcome], ...],
     "entities": [[locator, path, at_import], ...],
     "hits": [[entity_no, ...], ...]}          # per test, in the order of "tests"

Tests and entities are numbered by position, so a hit costs one small integer. Whatever a
remote holds was written by someone else: ``decode`` bounds the compressed and the
inflated size, every count, every string, and the closed outcome vocabulary, and refuses
a document whose commit is not the one its name says (``MapRejected``, never a crash).
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from warpline.store.testmaps import RecordedMap

__all__ = ["MAX_COMPRESSED", "MAX_INFLATED", "SCHEMA", "MapRejected", "decode", "encode"]

SCHEMA = "warpline.testmap.v1"
MAX_COMPRESSED = 32 * 1024 * 1024
MAX_INFLATED = 256 * 1024 * 1024
MAX_TESTS = 500_000
MAX_ENTITIES = 2_000_000
MAX_HITS = 50_000_000
MAX_TEXT = 4096
OUTCOMES = frozenset({"passed", "failed", "skipped", "error", "xfailed", "xpassed", "unknown"})
_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


class MapRejected(ValueError):
    """A travelling map that is not a well-formed, bounded ``warpline.testmap.v1``."""


def encode(recorded: RecordedMap, recorded_at: int) -> bytes:
    """``recorded`` as one compressed document (deterministic for equal input)."""
    node_ids = sorted(recorded.tests.keys() | recorded.hits.keys())
    locators = sorted(set(recorded.entity_paths) | recorded.at_import
                      | {loc for locs in recorded.hits.values() for loc in locs})
    number = {loc: n for n, loc in enumerate(locators)}
    document = {
        "schema": SCHEMA, "commit": recorded.commit_sha, "source": recorded.source,
        "tracer_version": recorded.tracer_version, "rootdir": recorded.rootdir,
        "collected": len(node_ids) if recorded.collected is None else recorded.collected,
        "recorded_at": recorded_at, "partial": list(recorded.partial),
        "tests": [[n, *recorded.tests.get(n, (n.split("::", 1)[0], "unknown"))]
                  for n in node_ids],
        "entities": [[loc, recorded.entity_paths.get(loc, ""), int(loc in recorded.at_import)]
                     for loc in locators],
        "hits": [sorted(number[loc] for loc in recorded.hits.get(n, ())) for n in node_ids],
    }
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return zlib.compress(text.encode("utf-8"), 9)


def decode(data: bytes, commit: str) -> tuple[RecordedMap, int]:
    """The map in ``data`` and its recording time; ``MapRejected`` for anything else."""
    if len(data) > MAX_COMPRESSED:
        raise MapRejected(f"{len(data)} compressed bytes, over {MAX_COMPRESSED}")
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data, MAX_INFLATED)
    except zlib.error as exc:
        raise MapRejected(f"not zlib data ({exc})") from None
    if inflater.unconsumed_tail or not inflater.eof:
        raise MapRejected(f"inflates past {MAX_INFLATED} bytes or is truncated")
    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MapRejected(f"not JSON ({type(exc).__name__})") from None
    return _read(document, commit)


def _no_constant(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _read(doc: Any, commit: str) -> tuple[RecordedMap, int]:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise MapRejected(f"not a {SCHEMA} document")
    if not _SHA.match(commit) or doc.get("commit") != commit:
        raise MapRejected(f"names commit {str(doc.get('commit'))[:80]!r}, stored as {commit}")
    source, tracer, rootdir = (_text(doc, key) for key in ("source", "tracer_version", "rootdir"))
    collected, recorded_at = _count(doc, "collected", MAX_TESTS), _count(doc, "recorded_at",
                                                                          2**40)
    partial = doc.get("partial")
    if not isinstance(partial, list) or len(partial) > 64:
        raise MapRejected("`partial` is not a short list")
    tests = _rows(doc, "tests", MAX_TESTS, 3)
    entities = _rows(doc, "entities", MAX_ENTITIES, 3)
    hits = doc.get("hits")
    if not isinstance(hits, list) or len(hits) != len(tests):
        raise MapRejected("`hits` must hold one list per test")
    recorded = RecordedMap(commit, source, tracer, rootdir, collected=collected,
                           partial=[_string(p) for p in partial])
    locators: list[str] = []
    for locator, path, at_import in entities:
        locators.append(_string(locator))
        recorded.entity_paths[locators[-1]] = _string(path)
        if at_import not in (0, 1):
            raise MapRejected("`at_import` must be 0 or 1")
        if at_import:
            recorded.at_import.add(locators[-1])
    total = 0
    for (node_id, path, outcome), numbers in zip(tests, hits, strict=True):
        if outcome not in OUTCOMES:
            raise MapRejected(f"unknown outcome {str(outcome)[:40]!r}")
        if not isinstance(numbers, list):
            raise MapRejected("a test's hits must be a list")
        total += len(numbers)
        if total > MAX_HITS:
            raise MapRejected(f"more than {MAX_HITS} hits")
        if not all(type(n) is int and 0 <= n < len(locators) for n in numbers):
            raise MapRejected("a hit names no entity of the map")
        node = _string(node_id)
        recorded.tests[node] = (_string(path), str(outcome))
        recorded.hits[node] = {locators[n] for n in numbers}
    return recorded, recorded_at


def _string(value: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise MapRejected(f"expected a string of at most {MAX_TEXT} characters")
    return value


def _text(doc: dict[str, Any], key: str) -> str:
    try:
        return _string(doc.get(key))
    except MapRejected:
        raise MapRejected(f"`{key}` must be a string of at most {MAX_TEXT} characters") from None


def _count(doc: dict[str, Any], key: str, bound: int) -> int:
    value = doc.get(key)
    if type(value) is not int or not 0 <= value <= bound:
        raise MapRejected(f"`{key}` must be an integer in 0..{bound}")
    return value


def _rows(doc: dict[str, Any], key: str, bound: int, width: int) -> list[list[Any]]:
    rows = doc.get(key)
    if not isinstance(rows, list) or len(rows) > bound:
        raise MapRejected(f"`{key}` must be a list of at most {bound} rows")
    if not all(isinstance(r, list) and len(r) == width for r in rows):
        raise MapRejected(f"every row of `{key}` must have {width} fields")
    return rows
