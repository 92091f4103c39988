"""The ROSE protocol's scoring: navigation and error prevention, precision / recall /
likelihood at k, and feedback, for co-change rankings and the same-file baseline.

* **Navigation**: each changed item of a test transaction alone is the query; the expected
  answer is the rest of the transaction.
* **Error prevention**: all but one changed item is the query; the expected answer is the
  one left out (is it in the top k?).
* precision@k: correct / shown among the top k, over the queries that got any
  recommendation; recall@k: correct in the top k / expected, over all queries;
  likelihood@k: the share of all queries with a correct item in the top k; feedback: the
  share of queries with any recommendation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from _cochange_data import Transaction
from _cochange_mine import Feats, Miner

KS = (1, 3, 10)
DEPTH = 10


@dataclass(slots=True)
class Record:
    """One test transaction, as the miner saw it just before learning it."""
    items: list[Any]
    cands: dict[Any, dict[Any, Feats]]
    base: dict[Any, list[tuple[Any, int, int]]]
    recent: dict[Any, list[tuple[Any, int, int]]]
    session: list[tuple[Any, str]]
    paths: dict[Any, str]
    hop2: dict[Any, list[Any]]


@dataclass(slots=True)
class Ranker:
    name: str
    score: Callable[[Feats], float]
    min_support: int = 1
    min_confidence: float = 0.0
    fill: bool = False  # fill a short list with the same-file baseline
    rules: bool = True  # False: the same-file baseline alone
    by_recency: bool = False  # fill (or the baseline) with the file's newest changes
    session: bool = False  # before the file's, fill with the author's last few changes
    session_boost: float = 0.0  # added to the score of a candidate in the author's session
    session_file_first: bool = False  # the session's definitions in the query's files first
    hop2: bool = False  # before any other fill, the partners' partners

    def nav(self, rec: Record, q: Any) -> list[Any]:
        out: list[Any] = []
        if self.rules:
            mine = {x for x, _ in rec.session} if self.session_boost else set()
            scored = [(self.score(f) + self.session_boost * (x in mine), f.support, -f.age, x)
                      for x, f in rec.cands[q].items()
                      if f.support >= self.min_support and f.confidence >= self.min_confidence]
            scored.sort(key=lambda s: s[:3], reverse=True)
            out = [s[3] for s in scored[:DEPTH]]
        if self.hop2 and len(out) < DEPTH:
            seen = set(out) | {q}
            out.extend(x for x in rec.hop2[q] if x not in seen)
        if self.session and len(out) < DEPTH:
            seen = set(out) | {q}
            out.extend(x for x in self._session(rec, {rec.paths[q]}) if x not in seen)
        if (self.fill or not self.rules) and len(out) < DEPTH:
            seen = set(out) | {q}
            source = rec.recent[q] if self.by_recency else rec.base[q]
            out.extend(x for x, _, _ in source if x not in seen)
        return out[:DEPTH]

    def _session(self, rec: Record, files: set[str]) -> list[Any]:
        if not self.session_file_first:
            return [x for x, _ in rec.session]
        return [x for x, _ in sorted(rec.session, key=lambda xp: xp[1] not in files)]

    def prevent(self, rec: Record, query: list[Any]) -> list[Any]:
        asked = set(query)
        out: list[Any] = []
        if self.rules:
            mine = {x for x, _ in rec.session} if self.session_boost else set()
            best: dict[Any, tuple[float, int]] = {}
            for q in query:
                for x, f in rec.cands[q].items():
                    if x in asked or f.support < self.min_support \
                            or f.confidence < self.min_confidence:
                        continue
                    s = self.score(f) + self.session_boost * (x in mine)
                    old = best.get(x)
                    if old is None:
                        best[x] = (s, f.support)
                    else:
                        best[x] = (max(old[0], s), old[1] + f.support)
            out = [x for x, _ in sorted(best.items(), key=lambda kv: kv[1],
                                        reverse=True)[:DEPTH]]
        if self.session and len(out) < DEPTH:
            seen = set(out) | asked
            out.extend(x for x in self._session(rec, {rec.paths[q] for q in query})
                       if x not in seen)
        if (self.fill or not self.rules) and len(out) < DEPTH:
            merged: dict[Any, int] = {}
            for q in query:
                source = rec.recent[q] if self.by_recency else rec.base[q]
                for x, n, age in source:
                    if x not in asked:
                        value = -age if self.by_recency else n
                        merged[x] = max(merged.get(x, value), value)
            seen = set(out)
            out.extend(x for x, _ in sorted(merged.items(), key=lambda kv: -kv[1])
                       if x not in seen)
        return out[:DEPTH]


@dataclass(slots=True)
class Tally:
    queries: int = 0
    answered: int = 0
    precision: dict[int, float] = field(default_factory=lambda: dict.fromkeys(KS, 0.0))
    recall: dict[int, float] = field(default_factory=lambda: dict.fromkeys(KS, 0.0))
    likely: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))

    def add(self, ranked: list[Any], expected: set[Any]) -> None:
        self.queries += 1
        if ranked:
            self.answered += 1
        for k in KS:
            top = ranked[:k]
            hits = sum(1 for x in top if x in expected)
            if top:
                self.precision[k] += hits / len(top)
            self.recall[k] += hits / len(expected)
            self.likely[k] += hits > 0

    def wire(self) -> dict[str, float]:
        n, a = max(self.queries, 1), max(self.answered, 1)
        out: dict[str, float] = {"queries": self.queries, "feedback": self.answered / n}
        for k in KS:
            out[f"p@{k}"] = self.precision[k] / a
            out[f"r@{k}"] = self.recall[k] / n
            out[f"l@{k}"] = self.likely[k] / n
        return out


def evaluate(records: list[Record], ranker: Ranker) -> dict[str, dict[str, float]]:
    nav, prev = Tally(), Tally()
    for rec in records:
        if len(rec.items) < 2:
            continue
        for q in rec.items:
            nav.add(ranker.nav(rec, q), set(rec.items) - {q})
        for m in rec.items:
            prev.add(ranker.prevent(rec, [q for q in rec.items if q != m]), {m})
    return {"navigation": nav.wire(), "prevention": prev.wire()}


def replay(txs: list[Transaction], identity: str, tune_from: int, test_from: int
           ) -> tuple[list[Record], list[Record]]:
    """Learn every transaction in order; record the tuning window's and the test window's
    queries before learning each one (nothing is learned from a commit before it is
    scored)."""
    miner = Miner()
    tune: list[Record] = []
    test: list[Record] = []
    for index, tx in enumerate(txs):
        items = tx.items(identity)
        if index >= tune_from and len(items) >= 2:
            rec = Record(list(items),
                         {q: miner.candidates(q, p, tx.author) for q, p in items.items()},
                         {q: miner.same_file(p) for q, p in items.items()},
                         {q: miner.recent_file(p) for q, p in items.items()},
                         miner.session(tx.author), dict(items),
                         {q: miner.second_hop(q) for q in items})
            (test if index >= test_from else tune).append(rec)
        miner.learn(items, tx.author)
    return tune, test
