"""V8's own coverage (``NODE_V8_COVERAGE``, ``v8.takeCoverage()``) as executed lines.

A coverage file holds, per script (``url``), its functions' block ranges (character
offsets with execution counts, outer ranges first) and, for scripts with a source map,
Node's ``source-map-cache`` (the generated lines' lengths and the map). A line counts as
executed when the innermost range holding the whole of it (its first to its last
non-blank character) ran, as ``v8-to-istanbul`` decides; a line of generated code maps to
every original line its mappings name (TypeScript through ``tsx``/esbuild, Babel).
Functions V8 never compiled are not listed: they lie inside a range that did not run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

__all__ = ["executed_lines", "merge_lines", "read_coverage_dir"]

_B64 = {c: i for i, c in enumerate(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_MAX_SOURCE = 8 << 20


def _path_of(url: str) -> str | None:
    if url.startswith("file://"):
        return unquote(urlparse(url).path)
    return url if url.startswith("/") else None


def _line_spans(lengths: list[int], text: str | None) -> list[tuple[int, int]]:
    """Each line's (first, last) non-blank character offsets; (-1, -1) for a blank."""
    spans: list[tuple[int, int]] = []
    if text is not None:
        offset = 0
        for line in text.split("\n"):
            stripped = line.strip()
            # A comment line is no code (a definition's leading comment would otherwise
            # count for it whenever the module loads).
            if stripped and not stripped.startswith(("//", "/*", "*")):
                first = offset + (len(line) - len(line.lstrip()))
                spans.append((first, first + len(line.rstrip()) - (first - offset) - 1))
            else:
                spans.append((-1, -1))
            offset += len(line) + 1
        return spans
    offset = 0
    for length in lengths:  # no text: whole lines
        spans.append((offset, offset + length - 1) if length else (-1, -1))
        offset += length + 1
    return spans


def _executed(functions: list[dict[str, Any]], spans: list[tuple[int, int]]) -> set[int]:
    """1-based executed lines: the innermost range holding a line's first non-blank
    character ran and no range that did not run touches the line (``exports.f = () => 1``
    counts only when ``f`` ran; a definition's header and closing lines are not the
    enclosing code's); and the line where each function that ran starts (its header)."""
    import bisect

    ranges = [(r["startOffset"], r["endOffset"], r["count"])
              for function in functions for r in function.get("ranges", ())]
    ranges.sort(key=lambda r: (r[0], -r[1]))
    firsts = [f if f >= 0 else -1 for f, _ in spans]
    order = sorted((f, i) for i, f in enumerate(firsts) if f >= 0)
    keys = [f for f, _ in order]
    counts: list[int] = [0] * len(spans)
    touched = [False] * len(spans)
    lasts = [last for _, last in spans]
    for start, end, count in ranges:
        low, high = bisect.bisect_left(keys, start), bisect.bisect_left(keys, end)
        for _, index in order[low:high]:
            counts[index] = count
        if count == 0:  # every line it overlaps, from the one holding its start
            first = max(bisect.bisect_right(keys, start) - 1, 0)
            for _, index in order[first:high]:
                if firsts[index] < end and lasts[index] >= start:
                    touched[index] = True
    out = {i + 1 for i in range(len(spans)) if counts[i] > 0 and not touched[i]}
    for function in functions:
        head = function.get("ranges", [{}])[0]
        if head.get("count", 0) > 0 and function.get("functionName") is not None:
            at = bisect.bisect_right(keys, head.get("startOffset", 0)) - 1
            if at >= 0:
                out.add(order[at][1] + 1)
    return out


def _vlq(segment: str) -> list[int]:
    values: list[int] = []
    shift = value = 0
    for char in segment:
        digit = _B64.get(char)
        if digit is None:
            return values
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        shift = value = 0
    return values


def _mapped(lines: set[int], sourcemap: dict[str, Any], base: Path) -> dict[str, set[int]]:
    """Generated lines -> original file -> lines, through a source map's mappings."""
    sources = [str(s) for s in sourcemap.get("sources", [])]
    root = str(sourcemap.get("sourceRoot") or "")
    out: dict[str, set[int]] = {}
    source = orig_line = 0
    for index, text in enumerate(str(sourcemap.get("mappings", "")).split(";")):
        for segment in text.split(","):
            fields = _vlq(segment) if segment else []
            if len(fields) >= 4:
                source += fields[1]
                orig_line += fields[2]
                if index + 1 in lines and 0 <= source < len(sources):
                    out.setdefault(sources[source], set()).add(orig_line + 1)
    resolved: dict[str, set[int]] = {}
    for name, found in out.items():
        path = _path_of(root + name) if (root + name).startswith(("file:", "/")) else \
            str((base / (root + name)).resolve())
        if path is not None:
            resolved.setdefault(path, set()).update(found)
    return resolved


def executed_lines(coverage: dict[str, Any], within: Path,
                   spans: dict[str, list[tuple[int, int]] | None] | None = None
                   ) -> dict[str, set[int]]:
    """One coverage file's executed lines per absolute path under ``within`` (``spans``:
    the files' line spans, kept across calls)."""
    cache: dict[str, list[tuple[int, int]] | None] = {} if spans is None else spans
    out: dict[str, set[int]] = {}
    maps: dict[str, Any] = coverage.get("source-map-cache") or {}
    prefix = str(within)
    for script in coverage.get("result", ()):
        url = str(script.get("url", ""))
        path = _path_of(url)
        if path is None or not path.startswith(prefix) or "/node_modules/" in path:
            continue
        cached = maps.get(url)
        if isinstance(cached, dict) and isinstance(cached.get("data"), dict):
            generated = _line_spans([int(n) for n in cached.get("lineLengths", [])], None)
            lines = _executed(script.get("functions", []), generated)
            for name, found in _mapped(lines, cached["data"], Path(path).parent).items():
                out.setdefault(name, set()).update(found)
            continue
        if path not in cache:
            text = _source(Path(path))
            cache[path] = None if text is None else _line_spans([], text)
        known = cache[path]
        if known is None:
            continue
        lines = _executed(script.get("functions", []), known)
        out.setdefault(path, set()).update(lines)
    return out


def _source(path: Path) -> str | None:
    try:
        if path.stat().st_size > _MAX_SOURCE:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def merge_lines(into: dict[str, set[int]], more: dict[str, set[int]]) -> None:
    for path, lines in more.items():
        into.setdefault(path, set()).update(lines)


def read_coverage_dir(directory: Path, within: Path) -> dict[str, set[int]]:
    """Every coverage file of ``directory`` (one per process), merged."""
    out: dict[str, set[int]] = {}
    for file in sorted(directory.glob("coverage-*.json")):
        merge_lines(out, executed_lines(_load(file), within))
    return out


def _load(file: Path) -> dict[str, Any]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}




def read_per_test(file: Path, within: Path, base: Path) -> tuple[
        dict[str, dict[str, set[int]]], dict[str, str], dict[str, set[int]]]:
    """The intervals a runner hook wrote (``js/mocha_coverage.cjs``: one JSON line per
    interval, ``titles`` set for a test): ``(test id -> path -> lines, test id -> outcome,
    lines run outside every test)``. Test ids are ``<file>::<titles joined by ' > '>``,
    files relative to ``base`` (the repository root). The interval before a test counts
    for it when the previous test was of the same file (its hooks); else it is outside
    every test (loading the files, a suite's first ``before``)."""
    per_test: dict[str, dict[str, set[int]]] = {}
    outcomes: dict[str, str] = {}
    outside: dict[str, set[int]] = {}
    spans: dict[str, list[tuple[int, int]] | None] = {}
    pending: dict[str, set[int]] = {}
    pending_file: str | None = None
    last_file: str | None = None
    try:
        handle = file.open(encoding="utf-8")
    except OSError:
        return per_test, outcomes, outside
    with handle:
        for raw in handle:
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            lines = executed_lines(record, within, spans)
            test_file = record.get("file")
            titles = record.get("titles")
            if titles is None:
                if pending:
                    merge_lines(outside, pending)
                pending, pending_file = lines, test_file
                continue
            try:
                rel = Path(str(test_file)).resolve().relative_to(base).as_posix()
            except (ValueError, OSError):
                merge_lines(outside, lines)
                continue
            test_id = f"{rel}::" + " > ".join(str(t) for t in titles if t)
            mine = per_test.setdefault(test_id, {})
            merge_lines(mine, lines)
            if pending and pending_file == test_file and last_file == test_file:
                merge_lines(mine, pending)
            elif pending:
                merge_lines(outside, pending)
            pending, last_file = {}, test_file
            state = record.get("state")
            outcome = {"passed": "passed", "failed": "failed"}.get(str(state), "skipped")
            if outcomes.get(test_id) != "failed":
                outcomes[test_id] = outcome
    merge_lines(outside, pending)
    return per_test, outcomes, outside
