"""Co-change coupling against held-out history: the ROSE protocol (Zimmermann et al., ICSE
2004) on stores warpline builds, with the same-file baseline in the same run.

    python bench/bench_coupling.py [REPO ...] [--json OUT]

Without ``REPO``, the requests and pip corpora (``$WARPLINE_CORPORA`` or
``../shared/corpora``) are cloned into a temporary directory. A repository without a store
is backfilled first (``warpline backfill``).

Transactions (``_cochange_data``): reachable non-merge commits with 1 to 30 modified or
moved functions and classes, warpline's own files left out, in topological order. The last
30 % are held out (the test window); every threshold and ranking is chosen on the first
70 % alone (its second half is the tuning window, scored after learning the first half). Every
transaction is scored before it is learned (incremental, as ROSE). Identity: lineages
(renames and moves followed) and, in the same run, locators.

Rankings: ROSE (confidence, then support, with minimum support and confidence), the
signals ROSE did not have (recency-decayed confidence, same file, same directory, the
author's own definitions, how recently the candidate itself changed, the partners'
partners), a short list filled up with the author's session (what they changed in the
last 10 transactions) and with the same-file baseline (most-changed or newest first), and
the same-file baseline alone (the file's most-changed other definitions). ``reverify``'s
own thresholds (``service/history/coupling.py``) are scored in the same run.

The gate: the ranking chosen on the tuning window must beat the baseline on navigation
likelihood@3 and precision@3 on the test window of every repository, and what ``reverify``
lists must beat it on precision@3; otherwise the script exits 1.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from itertools import product
from pathlib import Path
from typing import Any

from _cochange_data import MAX_SIZE, transactions
from _cochange_eval import Ranker, evaluate, replay
from _cochange_mine import HALF_LIVES
from _requests_corpus import corpora_dir

from warpline.service.history import coupling

HELD_OUT = 0.30
TUNE_SHARE = 0.5  # of the first 70 %: the tuning window (scored after learning the rest)
CORPORA = ("requests", "pip")


def _store(repo: Path) -> Path:
    store = repo / ".weft" / "warpline" / "warpline.db"
    if not store.is_file():
        done = subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo",
                               str(repo)], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"backfill of {repo} failed: {done.stderr.strip()[-500:]}")
    return store


def _rose(min_support: int, min_confidence: float, fill: bool) -> Ranker:
    return Ranker(f"rose s>={min_support} c>={min_confidence}{' +fill' if fill else ''}",
                  lambda f: f.confidence, min_support, min_confidence, fill)


def _signals(base: Ranker) -> list[Ranker]:
    """Each signal ROSE lacked, on the thresholds chosen for ROSE."""
    out = []

    def like(name: str, score: Any) -> Ranker:
        return Ranker(name, score, base.min_support, base.min_confidence, base.fill)

    for i, half in enumerate(HALF_LIVES):
        out.append(like(f"recency h={half}", lambda f, i=i: f.decayed[i]))
    for beta in (0.1, 0.3):
        out.append(like(f"same file +{beta}", lambda f, b=beta: f.confidence + b * f.same_file))
        out.append(like(f"same dir +{beta}", lambda f, b=beta: f.confidence + b * f.same_dir))
        out.append(like(f"author +{beta}", lambda f, b=beta: f.confidence + b * f.author))
    for i, half in enumerate(HALF_LIVES):
        for beta in (0.1, 0.3):
            out.append(like(f"recency h={half} + same file +{beta}",
                            lambda f, i=i, b=beta: f.decayed[i] + b * f.same_file))
    for tau in (5, 20, 100):
        for beta in (0.2, 0.5):
            out.append(like(f"fresh x t={tau} +{beta}",
                            lambda f, t=tau, b=beta: f.confidence + b * 0.5 ** (f.fresh / t)))
    for i, half in enumerate(HALF_LIVES):
        out.append(like(f"recency h={half} + file +0.1 + fresh t=20 +0.2",
                        lambda f, i=i: f.decayed[i] + 0.1 * f.same_file
                        + 0.2 * 0.5 ** (f.fresh / 20)))
    out += [Ranker(f"{r.name} fill-newest", r.score, r.min_support, r.min_confidence, True,
                   by_recency=True) for r in list(out)]
    picked = [r for r in out if "fresh t=20" in r.name or r.name.startswith("recency h=200 + same")]
    out += [Ranker(f"{r.name} +session{' file first' if first else ''}", r.score,
                   r.min_support, r.min_confidence, True, by_recency=r.by_recency,
                   session=True, session_file_first=first)
            for r in picked for first in (False, True)]
    out += [Ranker(f"{r.name} +2-hop", r.score, r.min_support, r.min_confidence, True,
                   by_recency=r.by_recency, session=r.session,
                   session_file_first=r.session_file_first, hop2=True)
            for r in out if r.by_recency and "fresh t=20" in r.name]
    return out


def _key(result: dict[str, dict[str, float]]) -> tuple[float, float]:
    nav = result["navigation"]
    return nav["l@3"], nav["p@3"]


def run(repo: Path) -> dict[str, Any]:
    started = time.perf_counter()
    txs = transactions(_store(repo), MAX_SIZE)
    test_from = int(len(txs) * (1 - HELD_OUT))
    tune_from = int(test_from * (1 - TUNE_SHARE))
    replays = {identity: replay(txs, identity, tune_from, test_from)
               for identity in ("lineage", "locator")}
    tune, test = replays["lineage"]
    grid = [_rose(s, c, fill) for s, c, fill in product((1, 2, 3), (0.0, 0.1, 0.2, 0.3, 0.5),
                                                          (False, True))]
    scored = [(ranker, evaluate(tune, ranker)) for ranker in grid]
    rose_best = max((x for x in scored if not x[0].fill), key=lambda x: _key(x[1]))[0]
    best_fill = max((x for x in scored if x[0].fill), key=lambda x: _key(x[1]))[0]
    signals = _signals(best_fill)
    scored += [(ranker, evaluate(tune, ranker)) for ranker in signals]
    chosen = max(scored, key=lambda x: _key(x[1]))[0]
    baseline = Ranker("same-file baseline", lambda f: 0.0, rules=False)
    newest = Ranker("same-file newest", lambda f: 0.0, rules=False, by_recency=True)
    rows: list[tuple[str, str, dict[str, dict[str, float]]]] = [
        ("lineage", baseline.name, evaluate(test, baseline)),
        ("locator", baseline.name, evaluate(replays["locator"][1], baseline)),
        ("lineage", newest.name, evaluate(test, newest)),
        ("lineage", rose_best.name, evaluate(test, rose_best)),
        ("locator", rose_best.name, evaluate(replays["locator"][1], rose_best)),
        ("lineage", best_fill.name, evaluate(test, best_fill)),
    ]
    rows += [("lineage", r.name, evaluate(test, r)) for r in signals]
    # What reverify lists as co_change: ROSE's rules above the product's fixed thresholds,
    # no fill (a same-file neighbour without co-change evidence is not a partner).
    shipped = Ranker(f"reverify co_change (s>={coupling.MIN_SUPPORT} "
                     f"c>={coupling.MIN_CONFIDENCE})", lambda f: f.confidence,
                     coupling.MIN_SUPPORT, coupling.MIN_CONFIDENCE)
    rows.append(("lineage", shipped.name, evaluate(test, shipped)))
    rows.append(("lineage", f"CHOSEN: {chosen.name}", evaluate(test, chosen)))
    rows.append(("locator", f"CHOSEN: {chosen.name}", evaluate(replays["locator"][1], chosen)))
    base_nav = rows[0][2]["navigation"]
    chosen_nav = rows[-2][2]["navigation"]  # the chosen ranking, on lineages
    shipped_nav = rows[-3][2]["navigation"]  # what reverify lists
    gate = chosen_nav["l@3"] > base_nav["l@3"] and chosen_nav["p@3"] > base_nav["p@3"] \
        and shipped_nav["p@3"] > base_nav["p@3"]
    return {"repo": repo.name, "transactions": len(txs), "test": len(test),
            "tune": len(tune), "chosen": chosen.name, "gate": gate,
            "seconds": round(time.perf_counter() - started, 1),
            "rows": [{"identity": i, "ranking": n, **r} for i, n, r in rows]}


def _print(result: dict[str, Any]) -> None:
    print(f"== {result['repo']}: {result['transactions']} transactions, tuning window "
          f"{result['tune']} / test window {result['test']} with >= 2 items "
          f"({result['seconds']} s); gate {'holds' if result['gate'] else 'FAILS'}")
    head = ("identity", "ranking", "fb", "p@1", "p@3", "p@10", "r@3", "r@10", "l@1", "l@3",
            "l@10", "EP l@1", "EP l@3", "EP l@10")
    print(f"  {head[0]:8} {head[1]:66} " + " ".join(f"{h:>6}" for h in head[2:]))
    for row in result["rows"]:
        nav, ep = row["navigation"], row["prevention"]
        cells = [nav["feedback"], nav["p@1"], nav["p@3"], nav["p@10"], nav["r@3"], nav["r@10"],
                 nav["l@1"], nav["l@3"], nav["l@10"], ep["l@1"], ep["l@3"], ep["l@10"]]
        print(f"  {row['identity']:8} {row['ranking'][:66]:66} "
              + " ".join(f"{c:6.3f}" for c in cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*", type=Path)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="warpline-coupling-") as tmp:
        repos = list(args.repos)
        if not repos:
            for name in CORPORA:
                dest = Path(tmp) / name
                subprocess.run(["git", "clone", "-q", str(corpora_dir() / f"{name}.bundle"),
                                str(dest)], check=True, capture_output=True)
                repos.append(dest)
        for repo in repos:
            result = run(repo.resolve())
            _print(result)
            results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    failed = [r["repo"] for r in results if not r["gate"]]
    if failed:
        print(f"gate FAILS on {', '.join(failed)}: the chosen ranking does not beat the "
              "same-file baseline on navigation likelihood@3 and precision@3, or reverify's "
              "co_change does not beat it on precision@3", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
