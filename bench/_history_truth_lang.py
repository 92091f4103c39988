"""Build ``bench/lineage_truth_lang.json``: Rust, Go and Java function histories, without warpline.

    python bench/_history_truth_lang.py CORPUS_CLONE [--only LOCATOR]
    python bench/_history_truth_lang.py CORPUS_CLONE --heldout   # lineage_heldout_lang.json

No tree-sitter and no warpline code: each history is written by hand in ``TARGETS``
(``_history_truth_targets.py``) as its *segments*, newest first: where the definition lived
(path), the line its declaration starts on (a regular expression that must match exactly
one line of that version) and its locator there. The segments (renames, moves across files
and modules, receiver and signature changes) were found from git alone (``git log -S``,
``git log -L``, ``git log --follow``, reading the diffs) before warpline was run on them;
how each boundary was read is in ``NOTES``.

The builder only judges commits: every non-merge commit reachable from HEAD that touches a
segment's path (``git log --full-history``), against its parent. The definition at a
version is the newest segment that matches there; its **own text** runs from the doc
comments and attributes or annotations directly above the declaration (Go: the comment
block; Java: Javadoc, comments, annotations; Rust: from the first ``///``/``#[``) to its
end (universal-ctags' ``end`` for Go and Java; for Rust, which that ctags gives no end, the
matching brace by a small lexer that skips comments, strings, raw strings and chars), with
``\\r`` dropped; its blank lines are not compared (``_code``). A commit is in the history
when the definition exists after it and its text, path or locator differs from before it:
``added`` (new), ``moved`` (another segment's locator or another path before),
``modified`` (same place, other text).
Segment locators are HEAD's naming; ``RENAMED_BY_MANIFEST`` gives the older prefix the
dialect used before a manifest renamed a module (a ``go.mod`` added, a crate renamed), so
such a commit is a ``moved`` of every definition below it.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import _history_heldout_targets as heldout
from _history_truth_targets import (
    ABOUT,
    CORRECTIONS,
    NOTES,
    RENAMED_BY_MANIFEST,
    SELECTION,
    TARGETS,
)

OUT = Path(__file__).resolve().parent / "lineage_truth_lang.json"
HELDOUT_OUT = OUT.with_name("lineage_heldout_lang.json")
CTAGS_LANG = {"go": "Go", "java": "Java"}
SUFFIX = {"go": ".go", "java": ".java", "rust": ".rs"}
_RUST_NESTED = re.compile(r"^\s+(pub(\([^)]*\))?\s+)?(fn|struct|enum|impl|trait|mod|union)\b")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout


def show(repo: Path, rev: str, path: str) -> str | None:
    done = subprocess.run(["git", "-C", str(repo), "show", f"{rev}:{path}"],
                          capture_output=True, check=False)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def _ctags_end(language: str, text: str, line: int) -> int | None:
    with tempfile.NamedTemporaryFile("w", suffix=SUFFIX[language]) as handle:
        handle.write(text)
        handle.flush()
        out = subprocess.run(["ctags", "--fields=+ne", "-o", "-", "--output-format=json",
                              f"--language-force={CTAGS_LANG[language]}", handle.name],
                             capture_output=True, text=True, check=True).stdout
    for row in out.splitlines():
        tag = json.loads(row)
        if tag.get("line") == line and "end" in tag and tag.get("kind") in (
                "func", "method"):
            return int(tag["end"])
    return None


def _rust_end(lines: list[str], first: int) -> int | None:
    """The line (1-based) of the brace closing the item declared on line ``first``."""
    text = "\n".join(lines[first - 1:])
    depth = paren = i = 0
    seen = False
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
            continue
        if text.startswith("/*", i):
            nest, i = 1, i + 2
            while i < n and nest:
                if text.startswith("/*", i):
                    nest, i = nest + 1, i + 2
                elif text.startswith("*/", i):
                    nest, i = nest - 1, i + 2
                else:
                    i += 1
            continue
        raw = re.match(r'b?r(#*)"', text[i:]) if c in "br" and (
            i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if raw:
            close = '"' + raw.group(1)
            i = text.find(close, i + raw.end()) + len(close)
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c == "'":
            char = re.match(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'])'", text[i:])
            i += char.end() if char else 1
            continue
        if c in "([":
            paren += 1
        elif c in ")]":
            paren -= 1
        elif c == "{":
            depth += 1
            seen = True
        elif c == "}":
            depth -= 1
            if seen and depth == 0:
                return first + text.count("\n", 0, i)
        elif c == ";" and not seen and paren == 0:
            return first + text.count("\n", 0, i)
        i += 1
    return None


def _doc_start(language: str, lines: list[str], first: int) -> int:
    """The first line of the comments/attributes directly above the declaration."""
    start = first
    i = first - 1
    while i >= 1:
        s = lines[i - 1].strip()
        if language == "go" and s.startswith("//"):
            start = i
        elif language == "java" and (s.startswith(("@", "//", "/*", "*"))):
            start = i
        elif language == "rust" and s.startswith(("///", "#[", "/**")):
            start = i
        elif language == "rust" and s.startswith(("//", "*")):
            pass
        else:
            break
        i -= 1
    return start


def own_text(language: str, text: str, pattern: str, within: str | None = None
             ) -> tuple[str, ...] | None:
    """The definition's own text at one version, or None when its declaration is absent.

    ``within`` (Rust): a pattern for the enclosing ``impl``/``trait`` header; only lines
    inside that block are searched (a name several impls of the file share)."""
    lines = text.split("\n")
    low, high = 0, len(lines) + 1
    if within is not None:
        heads = [n for n, line in enumerate(lines, 1) if re.search(within, line)]
        if not heads:
            return None
        if len(heads) > 1:
            raise SystemExit(f"{within!r} matches lines {heads}: make it unique")
        low, high = heads[0], _rust_end(lines, heads[0]) or len(lines)
    hits = [n for n, line in enumerate(lines, 1)
            if low < n < high and re.search(pattern, line)]
    if not hits:
        return None
    if len(hits) > 1:
        raise SystemExit(f"{pattern!r} matches lines {hits}: make it unique")
    first = hits[0]
    end = (_rust_end(lines, first) if language == "rust"
           else _ctags_end(language, text, first))
    if end is None:
        raise SystemExit(f"no end for {pattern!r} at line {first}")
    body = lines[first:end]
    nested = [b for b in body if (language == "rust" and _RUST_NESTED.match(b))
              or (language == "java" and re.match(r"^\s+(final\s+)?class\s", b))]
    if nested:
        raise SystemExit(f"{pattern!r}: nested definitions {nested[:2]}; choose another")
    return tuple(line.rstrip("\r") for line in lines[_doc_start(language, lines, first) - 1:end])


_AFTER: dict[tuple[str, str], set[str]] = {}


def _descendants(repo: Path, commit: str) -> set[str]:
    """``commit`` and every commit after it on a path to HEAD."""
    key = (str(repo), commit)
    if key not in _AFTER:
        full = git(repo, "rev-parse", commit).strip()
        _AFTER[key] = {full, *git(repo, "rev-list", "--ancestry-path", f"{full}..HEAD").split()}
    return _AFTER[key]


def _applies(repo: Path, rev: str, segment: dict[str, str]) -> bool:
    """False from the segment's ``before`` commit on, and before its ``since`` commit (a
    name reused: an older definition under it is another definition)."""
    before, since = segment.get("before"), segment.get("since")
    if before is not None and rev in _descendants(repo, before):
        return False
    return since is None or rev in _descendants(repo, since)


def _found(repo: Path, language: str, rev: str, segments: list[dict[str, str]]
           ) -> tuple[int, tuple[str, ...]] | None:
    for index, segment in enumerate(segments):
        if not _applies(repo, rev, segment):
            continue
        text = show(repo, rev, segment["path"])
        if text is None:
            continue
        own = own_text(language, text, segment["start"], segment.get("within"))
        if own is not None:
            return index, own
    return None


def _code(own: tuple[str, ...]) -> tuple[str, ...]:
    """The own text without its blank lines: an edit of blank lines only is no change (the
    Python builder, ``_ast_truth.definitions``, and the per-commit truths drop them too)."""
    return tuple(line for line in own if line.strip())


def _locator(repo: Path, rev: str, locator: str, renames: list[tuple[str, str, str]]) -> str:
    """The locator at ``rev``: before a manifest renamed its module (go.mod added, a crate
    renamed in Cargo.toml), the dialect named it with the older prefix."""
    for commit, new, old in renames:
        if locator.startswith(new) and _applies(repo, rev, {"before": commit}):
            return old + locator[len(new):]
    return locator


def history(repo: Path, target: dict[str, Any], renames: list[tuple[str, str, str]],
            notes: dict[str, str] | None = None) -> list[dict[str, Any]]:
    segments = target["segments"]
    language = target["language"]
    commits: list[str] = [git(repo, "rev-parse", c).strip() for c, _, _ in renames]
    for path in dict.fromkeys(s["path"] for s in segments):
        for sha in git(repo, "log", "--full-history", "--no-merges", "--format=%H", "HEAD",
                       "--", path).split():
            if sha not in commits:
                commits.append(sha)
    order = git(repo, "rev-list", "--topo-order", "HEAD").split()
    rank = {sha: n for n, sha in enumerate(order)}
    events = []
    for sha in sorted(commits, key=lambda c: rank[c]):
        after = _found(repo, language, sha, segments)
        if after is None:
            continue
        parents = git(repo, "rev-list", "--parents", "-n", "1", sha).split()[1:]
        before = _found(repo, language, parents[0], segments) if parents else None
        segment = segments[after[0]]
        locator = _locator(repo, sha, segment["locator"], renames)
        if before is None:
            kind = "added"
        else:
            previous = segments[before[0]]
            previous_locator = _locator(repo, parents[0], previous["locator"], renames)
            if previous_locator != locator or previous["path"] != segment["path"]:
                kind = "moved"
            elif _code(before[1]) != _code(after[1]):
                kind = "modified"
            else:
                continue
        event = {"commit": sha, "kind": kind, "path": segment["path"], "locator": locator}
        if kind == "moved":
            event["previous_locator"] = previous_locator
            event["previous_path"] = previous["path"]
        note = next((v for k, v in (NOTES if notes is None else notes).items()
                     if sha.startswith(k)), None)
        if note:
            event["validated"] = note
        events.append(event)
    return events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--only", default=None, help="one locator (a substring of it)")
    parser.add_argument("--truth", type=Path, default=None,
                        help="the file written (default: lineage_truth_lang.json, or "
                             "lineage_heldout_lang.json with --heldout)")
    parser.add_argument("--heldout", action="store_true",
                        help="build the held-out histories (_history_heldout_targets.py)")
    args = parser.parse_args()
    name = args.corpus.name
    targets, notes = (heldout.HELDOUT, {**NOTES, **heldout.NOTES}) if args.heldout else (
        TARGETS, NOTES)
    about, selection, corrections = ((heldout.ABOUT, heldout.SELECTION, heldout.CORRECTIONS)
                                     if args.heldout else (ABOUT, SELECTION, CORRECTIONS))
    args.truth = args.truth or (HELDOUT_OUT if args.heldout else OUT)
    truth = json.loads(args.truth.read_text()) if args.truth.exists() else {"functions": []}
    kept = [f for f in truth["functions"] if f["corpus"] != name or (
        args.only is not None and args.only not in f["locator"])]
    for target in targets[name]:
        locator = target["segments"][0]["locator"]
        if args.only is not None and args.only not in locator:
            continue
        events = history(args.corpus, target, RENAMED_BY_MANIFEST.get(name, []), notes)
        kept.append({"corpus": name, "language": target["language"], "locator": locator,
                     "path": target["segments"][0]["path"], "verified": target["verified"],
                     "events": events})
        kinds = [e["kind"] for e in events]
        print(f"{locator}: {len(kinds)} commits "
              f"({', '.join(f'{k} {kinds.count(k)}' for k in sorted(set(kinds)))})")
        for event in events:
            if event["kind"] != "modified":
                print(f"    {event['commit'][:12]} {event['kind']} "
                      f"{event.get('previous_locator', '')} -> {event['locator']}")
    truth["about"], truth["selection"] = about, selection
    truth["corrections"] = corrections
    truth["functions"] = sorted(kept, key=lambda f: (f["corpus"], f["locator"]))
    args.truth.write_text(json.dumps(truth, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
