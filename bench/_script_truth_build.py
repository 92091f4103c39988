"""Build ``bench/lineage_truth_script.json``: TypeScript/JavaScript function histories
from git and hand-written eras, without warpline or tree-sitter.

    python bench/_script_truth_build.py CORPUS_DIR [--only LOCATOR] [--truth FILE]

The truth file's ``targets`` list names each function by its ``locator`` (warpline's id
at HEAD, ``docs/languages.md``) and its **eras**, newest first, each read by hand from
``git log -L``, ``git log --follow`` and ``git log -S`` before warpline was run: the
``path`` the definition lived at, a ``start`` regex matching its first line, optionally
``after``, a regex of a line above it (its class), and ``since``, the boundary commit (a
rename of the function, a move across files, a file rename such as ``.js`` -> ``.ts``)
from which that era holds; the oldest era has no ``since``. A boundary is a rename or a
move when the definition's lines, indentation stripped, are >= 0.6 similar (difflib) to
a definition removed in that commit, as for Python. Each target's ``note`` says how its
history was read.

A commit changes the definition as DESIGN §4 says (``warpline/git/diffmap.py``): its
zero-context diff removes or adds one of the definition's own lines, and the own
non-blank lines differ.

The definition's text at a version is read without a parser: the first line matching
``start``, down to the first later line that is only a closing brace at the start line's
indentation (``}``, ``};``, ``});``), with the comment lines directly above (no blank line
between), line endings dropped, and without the lines of nested named definitions
(``_NESTED``: declarations, bindings and member assignments of a function or class,
methods of classes and object literals), which are theirs, not the enclosing one's.

Judged: every non-merge commit reachable from the corpus's HEAD that touches an era's
path (``git rev-list --full-history``, side branches included): the era of a commit is the
newest whose ``since`` is the commit or one of its ancestors; a commit whose parent is in
an older era is the boundary (``moved``); otherwise ``added`` (absent at the parent),
``modified`` (text differs) or nothing. A removal (not recorded) and a second ``added`` (a
parallel branch's copy of the origin commit: recorded) are printed for reading. A merge
counts as warpline judges merges (``docs/lineage.md``): only where its text is neither a
parent's nor the clean re-merge's (``git merge-tree``), or, where the re-merge conflicted,
where one of its lines is in no parent's text; those are recorded and printed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pygit2

TRUTH = Path(__file__).resolve().parent / "lineage_truth_script.json"
_COMMENT = re.compile(r"^\s*(//|/\*|\*)")
_FUNCTION_VALUE = (r"=\s*(async\s+)?(function\b|class\b|[\w$]+\s*=>|(<.*>)?\(.*\)\s*(:\s*[^=]+)?=>"
                   r"|(<.*>)?\($)")
# A nested named definition (docs/languages.md: bindings and member assignments of a
# function or class, declarations, methods of classes and object literals); its lines
# are its own, not the enclosing definition's.
_NESTED = re.compile(
    r"^(\s+)(export\s+)?(async\s+)?function\*?\s*[\w$]+\s*[<(]"
    r"|^(\s+)(const|let|var)\s+[\w$]+\s*(:[^=]+)?" + _FUNCTION_VALUE
    + r"|^(\s+)(?!this\.)[\w$]+(\.[\w$]+)+\s*" + _FUNCTION_VALUE
    + r"|^(\s+)(static\s+|async\s+|get\s+|set\s+|private\s+|public\s+|protected\s+"
    r"|override\s+)*(?!(if|for|while|switch|catch|with|return|function)\b)[\w$]+\s*(<[^>]*>)?"
    r"\((?:[^()]|\([^()]*\))*\)\s*(:\s*[^{]+)?\{\s*$")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True, errors="replace").stdout


def own_lines(source: bytes | None, start: str, after: str | None = None
              ) -> list[tuple[int, str]] | None:
    """The definition's own lines as (1-based number, text) (see the module docstring),
    or None when absent; with ``after``, the first ``start`` line below the first
    ``after`` line (a method of a class)."""
    if source is None:
        return None
    lines = source.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    pattern = re.compile(start)
    begin = 0
    if after is not None:
        anchor = re.compile(after)
        begin = next((i for i, line in enumerate(lines) if anchor.search(line)), len(lines))
    for index, line in enumerate(lines):
        if index < begin or not pattern.search(line):
            continue
        indent = line[:len(line) - len(line.lstrip())]
        end = re.compile("^" + re.escape(indent) + r"\}[;)]*\s*$")
        last = next((j for j in range(index + 1, len(lines)) if end.match(lines[j])), index)
        first = index
        while first > 0 and _COMMENT.match(lines[first - 1]):
            first -= 1
        numbered = list(enumerate(lines, 1))
        return _own(numbered[first:index + 1], numbered[index + 1:last + 1])
    return None


def text_of(source: bytes | None, start: str, after: str | None = None
            ) -> tuple[str, ...] | None:
    found = own_lines(source, start, after)
    return None if found is None else tuple(text for _, text in found)


def _own(head: list[tuple[int, str]], body: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``head`` + ``body`` without the lines of nested named definitions (each from its
    comment block above to its closing brace at its own indentation)."""
    out = list(head)
    skip_to = -1
    for index, (_, line) in enumerate(body):
        if index <= skip_to:
            continue
        if _NESTED.match(line):
            skip_to = index  # a one-line definition
            if line.rstrip().endswith(("{", "(")):
                indent = line[:len(line) - len(line.lstrip())]
                end = re.compile("^" + re.escape(indent) + r"\}[;),]*\s*$")
                skip_to = next((j for j in range(index + 1, len(body))
                                if end.match(body[j][1])), index)
            while len(out) > len(head) and out[-1][1].strip() and _COMMENT.match(out[-1][1]):
                out.pop()
            continue
        out.append(body[index])
    return out


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def touched(repo: Path, parent: str, sha: str, path: str) -> tuple[set[int], set[int]]:
    """The lines a zero-context diff removes (old side) and adds (new side)."""
    diff = git(repo, "diff", "-U0", "--no-color", "--no-ext-diff", parent, sha, "--", path)
    old: set[int] = set()
    new: set[int] = set()
    for match in _HUNK.finditer(diff):
        start, count = int(match[1]), int(match[2] or 1)
        old.update(range(start, start + count))
        start, count = int(match[3]), int(match[4] or 1)
        new.update(range(start, start + count))
    return old, new


class History:
    def __init__(self, repo: Path, eras: list[dict[str, str]]) -> None:
        self.path = repo
        self.repo = pygit2.Repository(str(repo))
        self.eras = eras
        self.since = [self._oid(e["since"]) if e.get("since") else None for e in eras]

    def _oid(self, rev: str) -> pygit2.Oid:
        return self.repo.revparse_single(rev).peel(pygit2.Commit).id

    def era(self, oid: pygit2.Oid) -> int:
        for index, since in enumerate(self.since):
            if since is None or oid == since or self.repo.descendant_of(oid, since):
                return index
        return len(self.eras) - 1

    def lines(self, oid: pygit2.Oid, era: int) -> list[tuple[int, str]] | None:
        tree = self.repo[oid].peel(pygit2.Commit).tree
        try:
            blob = tree[self.eras[era]["path"]]
        except KeyError:
            return None
        return own_lines(blob.data if isinstance(blob, pygit2.Blob) else None,
                         self.eras[era]["start"], self.eras[era].get("after"))

    def text(self, oid: pygit2.Oid, era: int) -> tuple[str, ...] | None:
        found = self.lines(oid, era)
        return None if found is None else tuple(text for _, text in found)

    def changed(self, sha: str, parent: pygit2.Oid, era: int) -> bool:
        """DESIGN §4, as warpline/git/diffmap.py states it: the zero-context diff removes
        or adds one of the definition's own lines (a pure insertion touches no old line),
        and its own non-blank lines differ (a blank-line-only edit is no change)."""
        new, old = self.lines(pygit2.Oid(hex=sha), era), self.lines(parent, era)
        assert new is not None and old is not None
        if [t for _, t in new if t.strip()] == [t for _, t in old if t.strip()]:
            return False
        removed, added = touched(self.path, str(parent), sha, self.eras[era]["path"])
        return bool({n for n, _ in old} & removed or {n for n, _ in new} & added)

    def judge(self, sha: str) -> tuple[str | None, int]:
        oid = pygit2.Oid(hex=sha)
        commit = self.repo[oid].peel(pygit2.Commit)
        era = self.era(oid)
        new = self.text(oid, era)
        if not commit.parent_ids:
            return ("added" if new is not None else None), era
        parent = commit.parent_ids[0]
        old_era = self.era(parent)
        old = self.text(parent, old_era)
        if old_era != era:
            return "moved", era
        if new is None:
            return ("REMOVED" if old is not None else None), era
        if old is None:
            return "added", era
        return ("modified" if new != old and self.changed(sha, parent, era) else None), era

    def merge_differs(self, sha: str) -> str | None:
        """None when the merge's text is a parent's or the clean re-merge's; else why."""
        oid = pygit2.Oid(hex=sha)
        era = self.era(oid)
        new = self.text(oid, era)
        parents = self.repo[oid].peel(pygit2.Commit).parent_ids
        if any(self.text(p, self.era(p)) == new for p in parents):
            return None
        path = self.eras[era]["path"]
        done = subprocess.run(["git", "-C", str(self.path), "merge-tree", "--write-tree",
                               "--name-only", "--no-messages", *(str(p) for p in parents)],
                              capture_output=True, text=True, check=False)
        head, _, _ = done.stdout.partition("\n\n")
        tree_id, *conflicted = head.splitlines()
        if path in conflicted:
            # judged line by line (docs/lineage.md): what `git diff --cc` shows, a region
            # where the result is no parent's, inside the definition's own lines
            ours = {n for n, _ in self.lines(oid, era) or ()}
            shown: set[int] = set()
            for match in _CC_HUNK.finditer(git(self.path, "show", "--cc", "-U0", "--format=",
                                               sha, "--", path)):
                start, count = int(match[1]), int(match[2] or 1)
                shown.update(range(start, start + count) if count else (start, start + 1))
            return (f"re-merge conflicted on {path}; `git show --cc` shows own lines "
                    f"{sorted(ours & shown)}") if ours & shown else None
        try:
            blob = self.repo[pygit2.Oid(hex=tree_id)].peel(pygit2.Tree)[path]
        except KeyError:
            return "the re-merge lacks the file"
        if not isinstance(blob, pygit2.Blob):
            return "the re-merge has a directory at the file's path"
        remerged = text_of(blob.data, self.eras[era]["start"], self.eras[era].get("after"))
        return None if remerged == new else "differs from the clean re-merge"


_CC_HUNK = re.compile(r"^@@@ (?:-\d+(?:,\d+)? )+\+(\d+)(?:,(\d+))? @@@", re.MULTILINE)


def build(repo: Path, target: dict[str, Any]) -> dict[str, Any]:
    history = History(repo, target["eras"])
    paths = sorted({e["path"] for e in target["eras"]})
    events: list[dict[str, Any]] = []
    added = 0
    for sha in git(repo, "rev-list", "--no-merges", "--full-history", "HEAD", "--",
                   *paths).split():
        kind, era = history.judge(sha)
        if kind is None:
            continue
        if kind == "REMOVED" or (kind == "added" and added):
            print(f"   READ {sha[:12]} {kind} era {era} {target['locator']}")
        if kind == "REMOVED":
            continue
        added += kind == "added"
        event = {"commit": sha, "kind": kind, "path": target["eras"][era]["path"]}
        if kind == "moved":
            event["previous_path"] = target["eras"][era + 1]["path"]
            event["validated"] = target["eras"][era].get("validated", "")
        events.append(event)
    for sha in git(repo, "rev-list", "--merges", "--full-history", "HEAD", "--",
                   *paths).split():
        why = history.merge_differs(sha)
        if why:
            print(f"   READ merge {sha[:12]} {why} {target['locator']}")
            events.append({"commit": sha, "kind": "modified", "merge": True,
                           "path": target["eras"][history.era(pygit2.Oid(hex=sha))]["path"],
                           "validated": f"merge: {why}"})
    if not added:
        print(f"   READ no origin found for {target['locator']}")
    return {"corpus": target["corpus"], "locator": target["locator"],
            "note": target.get("note", ""), "events": events}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--only", default=None)
    parser.add_argument("--truth", type=Path, default=TRUTH)
    args = parser.parse_args()
    truth = json.loads(args.truth.read_text())
    name = args.corpus.name
    kept = [f for f in truth.get("functions", []) if f["corpus"] != name
            or (args.only is not None and f["locator"] != args.only)]
    for target in truth["targets"]:
        if target["corpus"] != name or args.only not in (None, target["locator"]):
            continue
        entry = build(args.corpus, target)
        kinds = [e["kind"] for e in entry["events"]]
        print(f"{entry['locator']}: {len(kinds)} commits "
              f"({', '.join(f'{k} {kinds.count(k)}' for k in sorted(set(kinds)))})")
        kept.append(entry)
    truth["functions"] = sorted(kept, key=lambda f: (f["corpus"], f["locator"]))
    args.truth.write_text(json.dumps(truth, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
