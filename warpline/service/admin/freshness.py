"""Verification freshness of worklist items, from the records ``verify_record`` stores.

For each item the caller passes ``(item_latest_change_commit, seed_change_commit)``:

* the *needed* commits are the non-null ones: the item's latest change and, for a
  downstream item, the seed change that put it on the worklist;
* ``fresh``: some recorded verification (of an allowed kind, when ``kinds`` is given) is at
  a commit that contains every needed commit (each is an ancestor of, or equal to, the
  verified commit). The newest such record is reported;
* ``stale``: there are records of an allowed kind, but none contains the needed commits.
  The newest record is reported;
* ``unverified``: no record of an allowed kind; and, by definition, any item whose latest
  change is not committed (``item_latest_change_commit`` is ``None``: a working-tree
  change, which no recorded verification can have covered). A caller with a downstream item
  whose *seed* is uncommitted passes ``None`` as the item's commit for the same reason.

"Newest" is the latest ``verified_at`` (record time), then the latest row. Records are
grouped per verified commit: ``kinds`` lists the allowed kinds recorded at that commit and
``last_verified_at`` is the latest of their times.

``commits_behind`` says how far the reported verification lags the change it needs: the
number of commits reachable from the needed commit and not from the verified one
(``git rev-list --count V..C``), the larger of the two for a downstream item. It is ``0``
when fresh, ``null`` when unverified, and ``null`` when it cannot be computed (a commit is
no longer in the repository, e.g. after a rebase and gc).

How ancestry is computed: with pygit2, but not with one ``descendant_of`` per (record,
change) pair. That call walks the history between the two commits, so on a 3,000-commit
history 1,000 items against 50 records took ~25 s (bench/bench_freshness.py). Instead one
topological revwalk from the records and the needed commits propagates a bitmask ("which
records contain this commit") from children to parents, so every (record, change) pair is
answered once, from one pass. The walk hides the parents of the oldest needed commit, which
bounds it to the history between the changes and the records; if that bound ever hides a
needed commit (only possible with skewed commit dates) the walk is redone unbounded, so the
answer is always exact. ``commits_behind`` comes from a second walk from the stale commits
that hides the reported record's commit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pygit2
from pygit2.enums import SortMode

from warpline import scope as scopes
from warpline.git import notes
from warpline.git.lookups import commit_or_none
from warpline.service.shared.context import RepoContext
from warpline.service.shared.envelope import iso_z
from warpline.store.verifications import records as stored_records

STATES = ("fresh", "stale", "unverified")


@dataclass(frozen=True, slots=True)
class _Verified:
    """All allowed records at one commit, and the strongest scope among them."""

    sha: str
    kinds: tuple[str, ...]
    verified_at: int
    last_row: int
    extent: str = "unknown"
    basis: str | None = None
    claim: str = "local"  # whose claim the reported record is (CLAIMS)
    signer: str | None = None

    def rank(self) -> int:
        return scopes.rank(self.extent, self.basis)


# Whose claim a record is, most trusted first: a row this clone recorded (a local run's
# receipt or a local attestation), a note line whose SSH signature verifies for a
# principal of git's allowed signers (a configured CI identity), any other note line.
CLAIMS = ("local", "ci_identity", "remote_unverified")


def load_verified(ctx: RepoContext, kinds: Sequence[str] | None,
                  history_head: str | None = None,
                  warnings: list[str] | None = None) -> list[_Verified]:
    """Records of allowed kinds (store rows and git notes) grouped per commit, newest first.

    With ``history_head``, only records at commits in that commit's history (its ancestors
    and itself) are evidence: a pass on another branch, or on a commit after the answered
    one, says nothing about the history being answered. Note lines warpline does not
    believe are named in ``warnings``."""
    Best = tuple[int, int, str, str | None, str, str | None]  # rank, trust, extent, basis,
    grouped: dict[str, tuple[set[str], int, int, Best]] = {}  # claim, signer
    rows: list[tuple[Any, ...]] = [(*row, "local", None) for row in
                                   stored_records(ctx.store, "warpline", kinds)]
    # Records other machines pushed travel as git notes; they count like local rows
    # (row id 0: a local row of the same time is "newer"), as a remote's claim.
    wanted = None if kinds is None else set(kinds)
    noted = notes.read_all(ctx.repo)
    if warnings is not None and noted.warning():
        warnings.append(str(noted.warning()))
    signers = _signers(ctx, noted, wanted)
    for r in noted.records:
        if wanted is None or r.kind in wanted:
            signer = signers.get((r.commit, r.kind))
            rows.append((r.commit, r.kind, r.verified_at, 0, r.extent, r.run,
                         "remote_unverified" if signer is None else "ci_identity", signer))
    for sha, kind, verified_at, row_id, extent, run, claim, signer in rows:
        seen_kinds, at, last, best = grouped.get(
            str(sha), (set(), 0, 0, (-1, -1, "unknown", None, claim, None)))
        seen_kinds.add(str(kind))
        basis = scopes.basis_of(run)
        here: Best = (scopes.rank(extent, basis), -CLAIMS.index(claim), str(extent), basis,
                      claim, signer)
        grouped[str(sha)] = (seen_kinds, max(at, int(verified_at)), max(last, int(row_id)),
                             max(best, here, key=lambda b: (b[0], b[1])))
    if history_head is not None and grouped:
        keep = in_history(ctx.repo, history_head, grouped)
        grouped = {sha: value for sha, value in grouped.items() if sha in keep}
    records = [_Verified(sha, tuple(sorted(k)), at, last, best[2], best[3], best[4], best[5])
               for sha, (k, at, last, best) in grouped.items()]
    records.sort(key=lambda r: (r.verified_at, r.last_row), reverse=True)
    return records


def _signers(ctx: RepoContext, noted: notes.NotesRead,
             wanted: set[str] | None) -> dict[tuple[str, str], str]:
    """``(commit, kind) -> principal`` for signed note lines that verify against git's
    allowed signers (the newest ``signing.MAX_VERIFY`` lines are checked)."""
    if not noted.signed:
        return {}
    from warpline.git import signing

    allowed = signing.allowed_signers(ctx.repo)
    if allowed is None:
        return {}
    best = {(r.commit, r.kind): r.rank() for r in noted.records}
    found: dict[tuple[str, str], str] = {}
    lines = sorted((r for r in noted.signed if wanted is None or r.kind in wanted),
                   key=lambda r: -r.verified_at)
    for record in lines[:signing.MAX_VERIFY]:
        key = (record.commit, record.kind)
        if key in found or record.rank() < best.get(key, 0):
            continue  # a weaker signed line does not vouch for a stronger unsigned claim
        principal = signing.verify(allowed, record.message, str(record.signature))
        if principal is not None:
            found[key] = principal
    return found


def in_history(repo: pygit2.Repository, head_sha: str, shas: Iterable[str]) -> set[str]:
    """Which of ``shas`` are ``head_sha`` or its ancestors: one walk from the head, ended
    as soon as every one is found (else it reads the head's whole history)."""
    head = commit_or_none(repo, head_sha)
    wanted = {sha for sha in shas if commit_or_none(repo, sha) is not None}
    if head is None or not wanted:
        return set()
    found: set[str] = set()
    for commit in repo.walk(head.id, SortMode.NONE):
        sha = str(commit.id)
        if sha in wanted:
            found.add(sha)
            if len(found) == len(wanted):
                break
    return found


def _walk(repo: pygit2.Repository, starts: Iterable[pygit2.Oid],
          hide: Iterable[pygit2.Oid]) -> pygit2.Walker:
    """Children before parents, over the ancestors of ``starts`` minus those of ``hide``."""
    walker = repo.walk(None, SortMode.TOPOLOGICAL | SortMode.TIME)
    for oid in starts:
        walker.push(oid)
    for oid in hide:
        walker.hide(oid)
    return walker


def containing_records(repo: pygit2.Repository, record_shas: Sequence[str],
                       changes: Iterable[str]) -> dict[str, int]:
    """For each change commit, a bitmask: bit i is set iff ``record_shas[i]`` contains it.

    Changes that are malformed or not in the repository are absent from the answer.
    """
    found = (commit_or_none(repo, sha) for sha in set(changes))
    targets = {c.id: c for c in found if c is not None}
    if not targets:
        return {}
    seeds: dict[pygit2.Oid, int] = {}
    for bit, sha in enumerate(record_shas):
        record = commit_or_none(repo, sha)
        if record is not None:
            seeds[record.id] = seeds.get(record.id, 0) | (1 << bit)
    if not seeds:
        return {str(oid): 0 for oid in targets}
    oldest = min(targets.values(), key=lambda c: c.commit_time)
    answer = _propagate(repo, seeds, targets, hide=oldest.parent_ids)
    if answer is None:  # the bound hid a needed commit (skewed dates): walk it all
        answer = _propagate(repo, seeds, targets, hide=())
    assert answer is not None
    return answer


def _propagate(repo: pygit2.Repository, seeds: dict[pygit2.Oid, int],
               targets: dict[pygit2.Oid, pygit2.Commit],
               hide: Iterable[pygit2.Oid]) -> dict[str, int] | None:
    masks = dict(seeds)
    found: dict[str, int] = {}
    for commit in _walk(repo, [*seeds, *targets], hide):
        mask = masks.pop(commit.id, 0)
        if commit.id in targets:
            found[str(commit.id)] = mask
            if len(found) == len(targets):
                return found
        if mask:
            for parent in commit.parent_ids:
                masks[parent] = masks.get(parent, 0) | mask
    return None  # some target was hidden


def commits_not_in(repo: pygit2.Repository, base_sha: str,
                   changes: Iterable[str]) -> dict[str, int | None]:
    """For each change commit, how many commits it reaches that ``base_sha`` does not."""
    wanted = sorted(set(changes))
    base = commit_or_none(repo, base_sha)
    commits = {sha: commit_or_none(repo, sha) for sha in wanted}
    answer: dict[str, int | None] = dict.fromkeys(wanted)
    present = [c for c in commits.values() if c is not None]
    if base is None or not present:
        return answer
    bits = {c.id: 1 << n for n, c in enumerate(present)}
    counts = [0] * len(present)
    masks = dict(bits)
    for commit in _walk(repo, bits, [base.id]):
        mask = masks.pop(commit.id, 0)
        rest, n = mask, 0
        while rest:
            if rest & 1:
                counts[n] += 1
            rest >>= 1
            n += 1
        for parent in commit.parent_ids:
            masks[parent] = masks.get(parent, 0) | mask
    for n, commit in enumerate(present):
        answer[str(commit.id)] = counts[n]
    return answer


def _unverified() -> dict[str, Any]:
    return {"state": "unverified", "last_verified_commit": None, "last_verified_at": None,
            "kinds": [], "commits_behind": None, "scope": None, "selection_basis": None,
            "claimed_by": None, "signer": None}


def _state(state: str, record: _Verified, behind: int | None) -> dict[str, Any]:
    return {"state": state, "last_verified_commit": record.sha,
            "last_verified_at": iso_z(record.verified_at), "kinds": list(record.kinds),
            "commits_behind": behind, "scope": record.extent,
            "selection_basis": record.basis if record.extent == "selection" else None,
            "claimed_by": record.claim, "signer": record.signer}


def verification_states(ctx: RepoContext, queries: list[tuple[str | None, str | None]],
                        kinds: list[str] | None,
                        history_head: str | None = None,
                        warnings: list[str] | None = None) -> list[dict[str, Any]]:
    """One dict per query (item_latest_change_commit, seed_change_commit) ->
    {state: "fresh"|"stale"|"unverified", last_verified_commit, last_verified_at (ISO Z),
    kinds: [...], commits_behind, scope, selection_basis}. Only records in
    ``history_head``'s history count, when given. See the module docstring."""
    records = load_verified(ctx, kinds, history_head, warnings)
    needs: list[tuple[str, ...] | None] = [
        None if item is None or not records
        else tuple(dict.fromkeys(c for c in (item, seed) if c is not None))
        for item, seed in queries]
    distinct = {change for need in needs if need for change in need}
    masks = containing_records(ctx.repo, [r.sha for r in records], distinct) \
        if distinct else {}
    answers: dict[tuple[str, ...], tuple[str, _Verified]] = {}
    for need in needs:
        if need is not None and need not in answers:
            answers[need] = _judge(records, need, masks)
    stale = {c for need, (state, _) in answers.items() if state == "stale" for c in need}
    lags = commits_not_in(ctx.repo, records[0].sha, stale) if stale else {}
    out: list[dict[str, Any]] = []
    for need in needs:
        if need is None:
            out.append(_unverified())
            continue
        state, record = answers[need]
        behind: int | None = 0
        if state == "stale":
            counts = [lags.get(change) for change in need]
            behind = None if None in counts else max(c or 0 for c in counts)
        out.append(_state(state, record, behind))
    return out


def _judge(records: list[_Verified], need: tuple[str, ...],
           masks: dict[str, int]) -> tuple[str, _Verified]:
    """Fresh at the record of the strongest scope containing every needed commit (the
    newest of those); else stale at the newest record."""
    common = -1
    for change in need:
        common &= masks.get(change, 0)
    if common:
        containing = [r for bit, r in enumerate(records) if common >> bit & 1]
        best = max(r.rank() for r in containing)
        return "fresh", next(r for r in containing if r.rank() == best)  # newest first
    return "stale", records[0]


def summarise(states: list[dict[str, Any]]) -> dict[str, int]:
    """``{"fresh": n, "stale": n, "unverified": n}`` over ``states``."""
    counts = dict.fromkeys(STATES, 0)
    for state in states:
        counts[state["state"]] += 1
    return counts


def scope_warnings(states: list[dict[str, Any]]) -> list[str]:
    """What the fresh items' passes covered, when it was less than the whole suite: a
    selection (on which basis), an attestation, a record of unknown scope."""
    counts: dict[tuple[str, str | None], int] = {}
    for state in states:
        if state["state"] == "fresh" and state.get("scope") != "whole_suite":
            key = (str(state.get("scope")), state.get("selection_basis"))
            counts[key] = counts.get(key, 0) + 1
    out: list[str] = []
    for (extent, basis), count in sorted(counts.items(), key=lambda kv: -kv[1]):
        items = f"{count} fresh item{'s' if count != 1 else ''}"
        if extent == "selection" and basis in ("static", "none"):
            out.append(f"{items} rest on a pass of a selection on basis {basis}, not of the "
                       "whole suite: the static graph misses tests a change can break. Run "
                       "the whole suite and record it (`pytest --warpline-verify KIND`).")
        elif extent == "selection":
            out.append(f"{items} rest on a pass of a selection (basis {basis}), not of the "
                       "whole suite.")
        elif extent == "attested":
            out.append(f"{items} rest on attestations (`verify-record`: an actor's word; "
                       "warpline saw no run).")
        else:
            out.append(f"{items} rest on records that do not say what ran (made before "
                       "records carried their scope).")
    return out
