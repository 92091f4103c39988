"""What history says about a change: co-change partners left out of it, and each item's
risk facts (``data.co_change`` and ``items[].enrichment.risk`` of ``reverify``).

Co-change follows lineages (a definition across its renames and moves) over
*transactions*: reachable non-merge commits with at most ``MAX_TRANSACTION`` modified or
moved functions and classes, warpline's own files left out. For a changed lineage ``q``
and another lineage ``x``: support = transactions holding both; confidence = support /
transactions holding ``q`` (the rule ``q => x`` of ROSE, Zimmermann et al. 2004). Only the
transactions of the changed lineages are read (an index walk), so nothing is mined ahead
and there is nothing to keep up to date at ingest. ``bench/bench_coupling.py`` measures
these rules against held-out commits.

Risk facts per item (``kind``):

* ``co_change``: partners that usually changed with it and are not in this change;
* ``churn``: it changed unusually often in the recent window (top decile of the window's
  changed definitions, and at least ``MIN_HOT`` changes);
* ``fixes``: recent commits that changed it and whose message says they fixed something.

``state`` is ``unavailable`` when the history is not there (a shallow clone, or nothing
ingested), with the reason in ``warnings``; ``absent`` when history holds nothing notable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from warpline.store import cochange
from warpline.store.db import Store

MAX_TRANSACTION = 30
MIN_SUPPORT = 2
MIN_CONFIDENCE = 0.3
MAX_PARTNERS = 5
PARTNERS_PER_ITEM = 3
_LOOKED_UP = 12  # partner candidates per changed lineage whose current state is read
WINDOW_COMMITS = 200
MIN_HOT = 3
HOT_QUANTILE = 0.9
MAX_FIXES = 3
# The subject says it fixed something, or a body line closes an issue as a fix.
_FIX = re.compile(r"\b(fix(es|ed|ing)?|bug ?fix|hotfix|bugs?|regression)\b", re.IGNORECASE)
_FIXES_ISSUE = re.compile(r"^\s*(fix(es|ed)?|resolves)\s+(#|gh-)\d+", re.IGNORECASE | re.MULTILINE)


@dataclass(slots=True)
class Partner:
    """A rule ``q => x`` of one changed entity: ``x`` as it is now, with its evidence."""
    lineage: int
    locator: str
    kind: str
    path: str
    support: int
    confidence: float
    last_commit: str
    last_topo: int
    changed_with: list[str] = field(default_factory=list)

    def wire(self) -> dict[str, Any]:
        return {"locator": self.locator, "kind": self.kind, "path": self.path,
                "support": self.support, "confidence": round(self.confidence, 3),
                "last_commit": self.last_commit, "changed_with": self.changed_with}


@dataclass(slots=True)
class History:
    """What history says about one worklist: the state, partners, facts per locator."""
    state: str  # EnrichmentValue
    partners: list[Partner] = field(default_factory=list)
    risk: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def co_change(self) -> list[dict[str, Any]]:
        return [p.wire() for p in self.partners]


def partners(store: Store, changed: dict[str, int], asked: frozenset[str] = frozenset()
             ) -> dict[str, list[Partner]]:
    """Per changed locator (``locator -> lineage``), its rules ``q => x`` above the
    thresholds, ``x`` outside the change and still defined, best first. The commits
    ``asked`` about are the change itself, not its history: they are left out."""
    lineages = set(changed.values())
    if not lineages:
        return {}
    by_commit: dict[int, list[cochange.TxItem]] = {}
    for item in cochange.transactions_of(store, lineages, MAX_TRANSACTION, asked):
        by_commit.setdefault(item.commit_id, []).append(item)
    totals: dict[int, int] = {}
    pairs: dict[tuple[int, int], list[Any]] = {}  # (q, x) -> [support, sha, topo]
    for items in by_commit.values():
        members = {i.lineage for i in items}
        sha, topo = items[0].sha, items[0].topo
        for q in members & lineages:
            totals[q] = totals.get(q, 0) + 1
            for x in members - lineages:
                cell = pairs.setdefault((q, x), [0, sha, topo])
                cell[0] += 1
                if topo > cell[2]:
                    cell[1], cell[2] = sha, topo
    strong: dict[int, list[tuple[int, list[Any]]]] = {}
    for (q, x), c in pairs.items():
        if c[0] >= MIN_SUPPORT and c[0] / totals[q] >= MIN_CONFIDENCE:
            strong.setdefault(q, []).append((x, c))
    for rules in strong.values():  # the best few: enough to fill the lists past removals
        rules.sort(key=lambda xc: (-xc[1][0], -xc[1][2], xc[0]))
        del rules[_LOOKED_UP:]
    latest = cochange.latest_of(store, {x for rules in strong.values() for x, _ in rules})
    out: dict[str, list[Partner]] = {}
    for locator, q in changed.items():
        found: list[Partner] = []
        for x, (support, sha, topo) in strong.get(q, []):
            now = latest.get(x)
            if now is None or now.removed:
                continue
            found.append(Partner(x, now.locator, now.kind, now.path, support,
                                 support / totals[q], sha, topo, [locator]))
        found.sort(key=_rank)
        out[locator] = found
    return out


def _rank(p: Partner) -> tuple[float, int, int, str]:
    return (-p.confidence, -p.support, -p.last_topo, p.locator)


def merge_partners(per_item: dict[str, list[Partner]]) -> list[Partner]:
    """One entry per partner across the changed items (its best rule), best first."""
    best: dict[int, Partner] = {}
    for locator, found in per_item.items():
        for p in found:
            old = best.get(p.lineage)
            if old is None:
                best[p.lineage] = Partner(p.lineage, p.locator, p.kind, p.path, p.support,
                                          p.confidence, p.last_commit, p.last_topo,
                                          [locator])
                continue
            old.changed_with.append(locator)
            if _rank(p) < _rank(old):
                old.support, old.confidence = p.support, p.confidence
            if p.last_topo > old.last_topo:
                old.last_commit, old.last_topo = p.last_commit, p.last_topo
    return sorted(best.values(), key=_rank)[:MAX_PARTNERS]


def hot(store: Store, lineages: dict[str, int], since: int, window: int,
        recent: dict[int, list[str]]) -> dict[str, dict[str, Any]]:
    """The churn fact of each locator that changed unusually often in the window
    (``recent``: each lineage's commits in the window, any change)."""
    if not any(len(recent.get(x, ())) >= MIN_HOT for x in lineages.values()):
        return {}  # none could be hot: the window's distribution is not read
    churn = cochange.window_churn(store, since)
    counts = sorted(churn.values())
    if not counts:
        return {}
    cut = counts[min(len(counts) - 1, int(len(counts) * HOT_QUANTILE))]
    median = counts[len(counts) // 2]
    out = {}
    for locator, lineage in lineages.items():
        n = churn.get(lineage, 0)
        if n >= MIN_HOT and n >= cut:
            below = sum(1 for c in counts if c < n)
            out[locator] = {"kind": "churn", "changes": n, "window_commits": window,
                            "percentile": round(100 * below / len(counts)),
                            "median_changes": median, "definitions_changed": len(counts)}
    return out


def recent_commits(store: Store, lineages: dict[str, int], since: int) -> dict[int, list[str]]:
    """Each lineage's commits in the window, newest first."""
    by_lineage: dict[int, list[str]] = {}
    for lineage, sha, _ in cochange.recent_lineage_commits(store, set(lineages.values()), since):
        by_lineage.setdefault(lineage, []).append(sha)
    return by_lineage


def fixes(repo: Any, lineages: dict[str, int], by_lineage: dict[int, list[str]]
          ) -> dict[str, dict[str, Any]]:
    """The ``fixes`` fact of each locator changed by a recent commit whose message says it
    fixed something (its subject, or a body line that fixes an issue; read from git)."""
    subjects: dict[str, str | None] = {}
    out = {}
    for locator, lineage in lineages.items():
        found = []
        for sha in by_lineage.get(lineage, []):
            if sha not in subjects:
                subjects[sha] = _fix_subject(repo, sha)
            subject = subjects[sha]
            if subject is not None:
                found.append({"commit": sha, "subject": subject})
        if found:
            out[locator] = {"kind": "fixes", "count": len(found), "commits": found[:MAX_FIXES]}
    return out


def _fix_subject(repo: Any, sha: str) -> str | None:
    try:
        message = str(repo[sha].message)
    except (KeyError, ValueError):
        return None  # not in the object database (a rewritten-away commit): not counted
    subject = message.strip().splitlines()[0] if message.strip() else ""
    return subject[:200] if _FIX.search(subject) or _FIXES_ISSUE.search(message) else None


def assess(ctx: Any, lineages: dict[str, int], changed: Sequence[str],
           page: Iterable[str], asked: frozenset[str] = frozenset()) -> History:
    """Co-change partners of the ``changed`` locators and the risk facts of the ``page``
    locators (``lineages`` maps each known locator to its lineage)."""
    if ctx.boundary():
        return History("unavailable", warnings=[
            "Risk and co-change are unavailable: the history before the shallow boundary, "
            "which would show what usually changes together, churn and past fixes, is not "
            "here. `git fetch --unshallow`, then ask again."])
    store = ctx.store
    since, window = cochange.window_start(store, WINDOW_COMMITS)
    if window == 0:
        return History("unavailable", warnings=[
            "Risk and co-change are unavailable: no commit history is ingested. Run "
            f"`warpline backfill --repo {ctx.root}`."])
    seeds = {loc: lineages[loc] for loc in changed if loc in lineages}
    per_item = partners(store, seeds, asked)
    shown = {loc: lineages[loc] for loc in dict.fromkeys(page) if loc in lineages}
    risk: dict[str, list[dict[str, Any]]] = {loc: [] for loc in dict.fromkeys(page)}
    for locator, found in per_item.items():
        if locator in risk and found:
            risk[locator].append({"kind": "co_change", "missing": [
                {"locator": p.locator, "support": p.support,
                 "confidence": round(p.confidence, 3), "last_commit": p.last_commit}
                for p in found[:PARTNERS_PER_ITEM]]})
    recent = recent_commits(store, shown, since)
    for facts in (hot(store, shown, since, window, recent), fixes(ctx.repo, shown, recent)):
        for locator, fact in facts.items():
            risk[locator].append(fact)
    merged = merge_partners(per_item)
    state = "present" if merged or any(risk.values()) else "absent"
    return History(state, merged, risk)


def for_worklist(ctx: Any, book: Any, items: Sequence[Any], page: Sequence[Any],
                 rev_range: dict[str, Any] | None) -> History:
    """``assess`` for a worklist: its changed items are the change (``rev_range``: the
    range's ``head_commit`` and ``base_commit`` as seeds resolved them), its page gets
    facts."""
    # Transactions hold functions and classes only: a file's or module's lineage has no
    # rules, and reading its commits (a file changes in hundreds) would be wasted.
    changed = [i.locator for i in items
               if i.reason == "changed" and i.kind in ("function", "class")]
    lineages = {}
    for locator in [*changed, *(i.locator for i in page)]:
        lineage = book.lineage(locator)
        if lineage is not None:
            lineages[locator] = lineage
    return assess(ctx, lineages, changed, [i.locator for i in page],
                  _range_shas(ctx, rev_range))


def _range_shas(ctx: Any, info: dict[str, Any] | None) -> frozenset[str]:
    if not info or not info.get("rev_range") or not info.get("head_commit"):
        return frozenset()
    head = info["head_commit"]
    if info.get("base_commit") is None:
        return frozenset({head})  # one commit
    from warpline.git.repo import commits_in_range

    repo = ctx.repo
    return frozenset(str(c.id) for c in commits_in_range(repo, repo[info["base_commit"]],
                                                         repo[head]))
