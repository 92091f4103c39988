"""A test map as bytes that travel with git, and back — read as untrusted data.

One map is one zlib-compressed JSON document (``warpline.testmap.v1``):

    {"schema": "warpline.testmap.v1", "commit": SHA, "source": ..., "tracer_version": ...,
     "rootdir": ..., "collected": N, "recorded_at": UNIX, "partial": [...],
     "tests": [[node_id, path, outcome], ...],
     "entities": [[locator, path, at_import], ...],
     "hits": [[entity_no, ...], ...]}          # per test, in the order of "tests"

Tests and entities are numbered by position, so a hit costs one small integer. Whatever a
remote holds was written by someone else: ``decode`` bounds the compressed and the
inflated size, what parsing would cost in memory (estimated from the inflated bytes before
``json.loads``), every count, every string (UTF-8 only: no lone surrogates), and the closed
outcome vocabulary, and refuses a document whose commit is not the one its name says
(``MapRejected``, never a crash). ``recorded_at`` is clamped to 1970..now; a test whose
node id is not a test id (``--co``, ``-pno:warpline``: ``nodeids.is_test_id``) is dropped.
Both are said in ``notes``.
"""

from __future__ import annotations

import json
import re
import time
import zlib
from typing import Any

from warpline.store.testmaps import RecordedMap
from warpline.testmap.nodeids import is_test_id

__all__ = ["MAX_COMPRESSED", "MAX_INFLATED", "READ_BUDGET", "SCHEMA", "MapRejected",
           "decode", "encode", "read_cost"]

SCHEMA = "warpline.testmap.v1"
MAX_COMPRESSED = 32 * 1024 * 1024
MAX_INFLATED = 32 * 1024 * 1024
# Bytes one map may take to parse and hold (read_cost): with a process's own ~100 MB, a
# sync stays under 256 MB. About a million test -> entity hits fit.
READ_BUDGET = 128 * 1024 * 1024
MAX_TESTS = 500_000
MAX_ENTITIES = 2_000_000
MAX_HITS = 10_000_000
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


def decode(data: bytes, commit: str, *, now: int | None = None, future: int | None = None,
           notes: list[str] | None = None) -> tuple[RecordedMap, int]:
    """The map in ``data`` and its recording time; ``MapRejected`` for anything else.
    A ``recorded_at`` after ``now`` becomes ``future`` (default ``now``; the importer
    gives the commit's own time, the same at every sync). What was clamped or dropped is
    appended to ``notes``."""
    if len(data) > MAX_COMPRESSED:
        raise MapRejected(f"{len(data)} compressed bytes, over {MAX_COMPRESSED}")
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data, MAX_INFLATED)
    except zlib.error as exc:
        raise MapRejected(f"not zlib data ({exc})") from None
    if inflater.unconsumed_tail or not inflater.eof:
        raise MapRejected(f"inflates past {MAX_INFLATED} bytes or is truncated")
    cost = read_cost(raw)
    if cost > READ_BUDGET:
        raise MapRejected(f"would take about {cost >> 20} MiB to read, over the "
                          f"{READ_BUDGET >> 20} MiB budget")
    try:
        text = raw.decode("utf-8")
        del raw
        document = json.loads(text, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MapRejected(f"not JSON ({type(exc).__name__})") from None
    del text
    now = int(time.time()) if now is None else now
    return _read(document, commit, (now, now if future is None else min(future, now)),
                 [] if notes is None else notes)


def read_cost(raw: bytes) -> int:
    """An upper estimate of the memory ``json.loads`` and the map built from it take for
    ``raw``: its text, plus per list, per string and per element the size of the Python
    objects (counted with ``bytes.count``, before anything is parsed). An element is
    mostly a hit: an int in the document's list and a slot of its test's set in the map
    (measured: 256 MB for 2.1 million hits, this estimate 280 MB)."""
    return (2 * len(raw) + 120 * raw.count(b"[") + 80 * (raw.count(b'"') // 2)
            + 110 * raw.count(b","))


def _no_constant(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _read(doc: Any, commit: str, now: tuple[int, int],
          notes: list[str]) -> tuple[RecordedMap, int]:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise MapRejected(f"not a {SCHEMA} document")
    if not _SHA.match(commit) or doc.get("commit") != commit:
        raise MapRejected(f"names commit {str(doc.get('commit'))[:80]!r}, stored as {commit}")
    source, tracer, rootdir = (_text(doc, key) for key in ("source", "tracer_version", "rootdir"))
    collected = _count(doc, "collected", MAX_TESTS)
    recorded_at = _recorded_at(doc.get("recorded_at"), now, notes)
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
    dropped: list[str] = []
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
        if not is_test_id(node_id) or not is_test_id(path):
            dropped.append(ascii(node_id)[:80])
            continue
        node = _string(node_id)
        recorded.tests[node] = (_string(path), str(outcome))
        recorded.hits[node] = {locators[n] for n in numbers}
    if dropped:
        notes.append(f"dropped {len(dropped)} test(s) whose node id is not a test id "
                     f"(first: {', '.join(dropped[:3])})")
    return recorded, recorded_at


def _recorded_at(value: Any, now: tuple[int, int], notes: list[str]) -> int:
    """A claim about time: an integer, clamped to 1970..now (a date past 9999 broke every
    later answer that showed it; one in the future would outrank every real map). ``now``:
    (the bound, what a later time becomes)."""
    if type(value) is not int or abs(value) > 2**40:
        raise MapRejected("`recorded_at` must be an integer (Unix seconds)")
    clamped = max(value, 0) if value <= now[0] else max(now[1], 0)
    if clamped != value:
        notes.append(f"recorded_at {value} clamped to {clamped}")
    return clamped


def _string(value: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise MapRejected(f"expected a string of at most {MAX_TEXT} characters")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise MapRejected(f"a string holds a lone surrogate ({ascii(value)[:60]})") from None
    return value


def _text(doc: dict[str, Any], key: str) -> str:
    try:
        return _string(doc.get(key))
    except MapRejected as exc:
        raise MapRejected(f"`{key}`: {exc}") from None


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
