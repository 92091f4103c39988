"""Incremental co-change mining for the benchmark (ROSE's rules, and signals ROSE lacked).

``Miner`` learns transactions one at a time; before it learns a test transaction, the
benchmark asks it for each changed item's candidates. A candidate carries its features at
that moment: support and confidence of the rule ``q => x`` (ROSE), the same confidence with
older co-changes decayed (recency), whether ``x`` lives in ``q``'s file or directory, and
whether the test commit's author changed ``x`` before (authorship).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

HALF_LIVES = (50, 200, 800)  # in transactions
SESSION = 10  # recent transactions an author's session is read from
BASELINE_DEPTH = 40


@dataclass(slots=True, frozen=True)
class Feats:
    support: int
    confidence: float
    decayed: tuple[float, ...]  # confidence with co-changes decayed, per half-life
    same_file: bool
    same_dir: bool
    author: bool
    age: int  # transactions since the pair last changed together
    fresh: int  # transactions since x itself last changed


def _dir(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


class Miner:
    def __init__(self) -> None:
        self.now = 0
        self.count: dict[Any, int] = {}
        self.decayed: dict[Any, list[float]] = {}  # [value per half-life..., at]
        self.pairs: dict[Any, dict[Any, list[float]]] = {}  # [sup, last, dec..., at]
        self.path_of: dict[Any, str] = {}
        self.by_path: dict[str, dict[Any, int]] = {}
        self.authors: dict[Any, set[str]] = {}
        self.last: dict[Any, int] = {}
        self.history: list[tuple[str, list[Any]]] = []  # the last SESSION transactions

    def learn(self, items: dict[Any, str], author: str) -> None:
        now = self.now
        keys = list(items)
        for key in keys:
            self.count[key] = self.count.get(key, 0) + 1
            dec = self.decayed.get(key)
            self.decayed[key] = _bump(dec, now)
            path = items[key]
            self.path_of[key] = path
            counts = self.by_path.setdefault(path, {})
            counts[key] = counts.get(key, 0) + 1
            self.authors.setdefault(key, set()).add(author)
            self.last[key] = now
        self.history = [*self.history[-(SESSION - 1):], (author, keys)]
        if len(keys) > 1:
            for a in keys:
                row = self.pairs.setdefault(a, {})
                for b in keys:
                    if a is b or a == b:
                        continue
                    cell = row.get(b)
                    if cell is None:
                        row[b] = [1.0, float(now), *(1.0 for _ in HALF_LIVES), float(now)]
                    else:
                        cell[0] += 1
                        cell[1] = float(now)
                        _decay_into(cell, 2, now)
        self.now += 1

    def candidates(self, q: Any, path: str, author: str) -> dict[Any, Feats]:
        row = self.pairs.get(q)
        if not row:
            return {}
        now = self.now
        total = self.count[q]
        qdec = _value(self.decayed[q], 0, now)
        qdir = _dir(path)
        out = {}
        for x, cell in row.items():
            dec = _value(cell, 2, now)
            xpath = self.path_of.get(x, "")
            out[x] = Feats(int(cell[0]), cell[0] / total,
                           tuple(d / max(qd, 1e-12) for d, qd in zip(dec, qdec, strict=True)),
                           xpath == path, _dir(xpath) == qdir,
                           author in self.authors.get(x, ()), now - int(cell[1]),
                           now - self.last[x])
        return out

    def same_file(self, path: str) -> list[tuple[Any, int, int]]:
        """The file's most-changed definitions so far (still in that file), most first,
        each with how many transactions ago it last changed."""
        counts = self.by_path.get(path, {})
        live = ((k, n, self.now - self.last[k]) for k, n in counts.items()
                if self.path_of.get(k) == path)
        return heapq.nlargest(BASELINE_DEPTH, live, key=lambda kv: kv[1])

    def second_hop(self, q: Any, width: int = 5) -> list[Any]:
        """Definitions that co-change with ``q``'s strongest partners but never with ``q``
        (transitive coupling), best first (product of the two confidences)."""
        row = self.pairs.get(q)
        if not row:
            return []
        total = self.count[q]
        first = heapq.nlargest(width, row.items(), key=lambda kv: kv[1][0])
        score: dict[Any, float] = {}
        for p, cell in first:
            c1 = cell[0] / total
            for x, pcell in self.pairs.get(p, {}).items():
                if x == q or x in row:
                    continue
                value = c1 * pcell[0] / self.count[p]
                if value > score.get(x, 0.0):
                    score[x] = value
        return [x for x, _ in heapq.nlargest(20, score.items(), key=lambda kv: kv[1])]

    def session(self, author: str) -> list[tuple[Any, str]]:
        """What this author changed in the last few transactions, newest first, with the
        file each lives in now."""
        seen: dict[Any, None] = {}
        for who, keys in reversed(self.history):
            if who == author:
                seen.update(dict.fromkeys(keys))
        return [(x, self.path_of.get(x, "")) for x in seen]

    def recent_file(self, path: str) -> list[tuple[Any, int, int]]:
        """The file's definitions by how recently they changed (newest first)."""
        counts = self.by_path.get(path, {})
        live = ((k, n, self.now - self.last[k]) for k, n in counts.items()
                if self.path_of.get(k) == path)
        return heapq.nsmallest(BASELINE_DEPTH, live, key=lambda kv: (kv[2], -kv[1]))


def _bump(dec: list[float] | None, now: int) -> list[float]:
    if dec is None:
        return [*(1.0 for _ in HALF_LIVES), float(now)]
    _decay_into(dec, 0, now)
    return dec


def _decay_into(cell: list[float], start: int, now: int) -> None:
    """Decay the values from ``start`` to ``now`` and add this co-change."""
    at = cell[-1]
    for i, half in enumerate(HALF_LIVES):
        cell[start + i] = cell[start + i] * 0.5 ** ((now - at) / half) + 1.0
    cell[-1] = float(now)


def _value(cell: list[float], start: int, now: int) -> tuple[float, ...]:
    at = cell[-1]
    return tuple(cell[start + i] * 0.5 ** ((now - at) / half)
                 for i, half in enumerate(HALF_LIVES))
