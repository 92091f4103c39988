"""Build ``bench/lineage_truth.json``: function histories from git, without warpline.

    python bench/_history_truth_build.py CORPUS_DIR [--only NAME]
    python bench/_history_truth_build.py --annotate   # rewrite the validation notes only
    python bench/_history_truth_build.py CORPUS_DIR --truth bench/lineage_heldout.json

``--truth FILE`` (default ``bench/lineage_truth.json``) names the truth written; when that
file has a ``targets`` object (corpus -> list of [path, qualname]) those functions are built
instead of ``TARGETS``, and its ``notes`` object (commit prefix -> reading) is used before
``NOTES`` for the ``validated`` text; every other key of the file is kept as it was.

For each function in ``TARGETS`` (named by its path and qualified name at HEAD):

1. **Candidates**: every commit ``git log --follow`` lists for the file (rename commits
   included, the requests ``src/`` move among them), and ``git log -L <first>,<last>:<path>``
   over the definition's ``ast`` span at HEAD.
2. **Each candidate** is judged with ``_ast_truth.definitions`` over the file at the commit
   and at its first parent (the path the file had there): ``added`` when the definition is
   new, ``modified`` when its own text changed, ``moved`` when git renamed the file; a
   candidate that changed none of the definition's own lines (``-L``'s range runs to the
   next ``def``, so a function added after it shows up) is dropped.
3. **Boundaries**: where the definition is ``added``, every definition removed in the same
   commit is compared with it (difflib over the own text, the name blanked; >= 0.6, the
   best one); a match is a rename or move, and the walk continues from its path and name
   at the parent. A commit where either side is a version no parser here reads (committed
   broken code) is recorded as ``unreadable`` and left out of the scoring. A class renamed
   around a method (``SessionMixin`` -> ``SessionRedirectMixin``) is found where the
   method's text is under another name in the same file: the boundary is the commit where
   the old name goes and the new one comes. Every boundary is printed for reading; how
   each was read is in ``bench/README.md``.

Merges are left out (warpline records a merge only where it differs from a re-merge of
its parents).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pygit2
from _ast_truth import _walk, definitions, dotted

TARGETS: dict[str, list[tuple[str, str]]] = {
    "requests": [
        ("src/requests/utils.py", "requote_uri"),
        ("src/requests/sessions.py", "merge_setting"),
        ("src/requests/_internal_utils.py", "to_native_string"),
        ("src/requests/sessions.py", "Session.request"),
        ("src/requests/adapters.py", "HTTPAdapter.send"),
        ("src/requests/models.py", "PreparedRequest.prepare_body"),
        ("src/requests/sessions.py", "SessionRedirectMixin.resolve_redirects"),
        ("src/requests/utils.py", "super_len"),
        ("src/requests/utils.py", "get_encoding_from_headers"),
        ("src/requests/auth.py", "HTTPDigestAuth.build_digest_header"),
    ],
    "pip": [
        ("src/pip/_internal/utils/misc.py", "ensure_dir"),
        ("src/pip/_internal/utils/misc.py", "rmtree"),
        ("src/pip/_internal/req/constructors.py", "install_req_from_line"),
        ("src/pip/_internal/index/package_finder.py", "PackageFinder.find_requirement"),
        ("src/pip/_internal/models/wheel.py", "Wheel.supported"),
        ("src/pip/_internal/utils/misc.py", "display_path"),
        ("src/pip/_internal/utils/misc.py", "splitext"),
        ("src/pip/_internal/operations/prepare.py", "unpack_url"),
        ("src/pip/_internal/utils/hashes.py", "Hashes.check_against_chunks"),
        ("src/pip/_internal/vcs/versioncontrol.py", "VersionControl.obtain"),
    ],
}

MATCH_MIN = 0.6

# How each boundary was validated: the diff read by hand (and the commit's own message).
NOTES: dict[str, str] = {
    # requests
    "d63e94f552eb": "git rename requests/ -> src/requests/ (diff-tree -M, R100); "
                    "definition text unchanged; read: the src/ layout move",
    "b8298b071032": "read: requote_path(path) -> requote_uri(uri), docstring and parameter "
                    "renamed, same body; message 'Rename utils.requote_path to requote_uri'",
    "f002b73026bd": "read: cut from requests/utils.py, pasted unchanged into the new "
                    "requests/_internal_utils.py; message 'Move to_native_string to "
                    "_internal_utils.py'",
    "92355ada54a3": "read: class SessionMixin renamed SessionRedirectMixin ('cleanup'); the "
                    "method's lines unchanged, so line-log does not list it: found by the "
                    "name change in the file",
    "98114245c686": "read: merge_kwargs rewritten as merge_setting (new signature, almost "
                    "every line new; message 'Refactor merge_kwargs'): counted as a new "
                    "definition (similarity below 0.6); an oracle following intent could "
                    "call it a rename",
    "8fbb1e6d97cd": "read: 61 lines added to utils.py, nothing removed anywhere (a copy "
                    "of code kept in models.py): the origin",
    # pip
    "95bcf8c5f639": "git rename into pip/_internal/ (diff-tree -M); message 'Move all "
                    "internal APIs to pip._internal'",
    "a5a07fe61c48": "read: classmethod InstallRequirement.from_line moved to module function "
                    "install_req_from_line in req/constructors.py; message 'Move "
                    "InstallRequirement.from_line to constructors module'",
    "a135af530130": "read: pip/req.py split into the pip/req/ package; message 'initial "
                    "breakup of req.py'",
    "8ed9acae60e6": "read: requirement handling cut from pip/__init__.py into pip/req.py; "
                    "message 'Factor out the requirement handling into pip.req'",
    "d766c448e1f8": "git rename index.py -> index/package_finder.py; message 'Move index "
                    "interaction code into pip._internal.index'",
    "b0df48ad3137": "read: PackageFinder cut from pip/__init__.py into pip/index.py; message "
                    "'Factor out the PackageIndex code'",
    "60f6ed9387b9": "read: class Wheel moved from wheel.py to models/wheel.py, methods "
                    "unchanged; message 'Move wheel.Wheel to models.wheel.Wheel'",
    "dc6b8393eb13": "read: routines moved from pip/__init__.py into pip/util.py and the vcs "
                    "package; message 'Moved some routines from __init__ into pip.util'",
    "767d11e49cb9": "git rename pip/util.py -> pip/utils/__init__.py",
    "6eb83c6d3abc": "read: unpack_url cut from download.py into operations/prepare.py; "
                    "message 'Move remaining functions in download to operations.prepare'",
    "a4a8d73bcc07": "read: method RequirementSet.unpack_url became module function "
                    "pip.download.unpack_url (self dropped, body edited); message 'Move "
                    "unpack_url to pip.download'",
    "51a93e067276": "read: on the 1.5.X branch (cherry-picked, 'Conflicts: pip/req/req_set.py'), "
                    "RequirementSet.unpack_url in pip/req.py gains download_dir and the "
                    "wheel/file-url branches; not an ancestor of a135af5 (develop's split of "
                    "req.py), reachable from HEAD through merge 3d64db2",
    "f1ea95c14b3b": "read: 1.5.X branch 'cherry-pick fixes': unpack_url's signature takes "
                    "download_dir=None in pip/req.py; parallel to a135af5, reachable via 3d64db2",
    "3066157cc34c": "read: 1.5.X branch, InstallRequirement.from_line in pip/req.py builds the "
                    "req from a wheel filename; parallel to a135af5; merge 3d64db2 ports the "
                    "same text into pip/req/req_install.py (own text equal to this commit's)",
    "5c89643d3d67": "read: VersionControl moved from vcs/__init__.py to vcs/versioncontrol.py; "
                    "message 'Remove importing from vcs in pip/_internal/__init__.py'",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "core.quotePath=false", *args],
                          capture_output=True, text=True, check=True,
                          errors="replace").stdout


_REPOS: dict[Path, pygit2.Repository] = {}
_DEFS: dict[str, dict[tuple[str, str], tuple[str, ...]] | None] = {}


def _blob(repo: Path, rev: str, path: str) -> pygit2.Blob | None:
    handle = _REPOS.setdefault(repo, pygit2.Repository(str(repo)))
    try:
        tree = handle.revparse_single(rev).peel(pygit2.Commit).tree
        entry = tree[path]
    except (KeyError, ValueError, pygit2.GitError):
        return None
    blob = handle[entry.id]
    return blob if isinstance(blob, pygit2.Blob) else None


def show(repo: Path, rev: str, path: str) -> bytes | None:
    blob = _blob(repo, rev, path)
    return None if blob is None else blob.data


def _definitions_at(repo: Path, rev: str, path: str
                    ) -> dict[tuple[str, str], tuple[str, ...]] | None:
    blob = _blob(repo, rev, path)
    if blob is None:
        return None
    key = str(blob.id)
    if key not in _DEFS:
        _DEFS[key] = definitions(blob.data)
    return _DEFS[key]


def own(repo: Path, rev: str, path: str, qualname: str) -> tuple[str, ...] | None:
    defs = _definitions_at(repo, rev, path)
    if not defs:
        return None
    return defs.get(("function", qualname))


def _blank(text: tuple[str, ...], name: str) -> str:
    return "\n".join(re.sub(rf"\b{re.escape(name)}\b", "_", line.strip()) for line in text)


def file_changes(repo: Path, sha: str) -> list[tuple[str, str | None, str | None]]:
    """(status, old path, new path) of the commit's .py files against its first parent."""
    out: list[tuple[str, str | None, str | None]] = []
    for line in git(repo, "diff-tree", "-r", "-M", "--root", "--name-status", "--no-commit-id",
                    sha).splitlines():
        status, *paths = line.split("\t")
        if status.startswith("R"):
            out.append(("R", paths[0], paths[1]))
        elif status.startswith("A"):
            out.append(("A", None, paths[0]))
        elif status.startswith("D"):
            out.append(("D", paths[0], None))
        else:
            out.append(("M", paths[0], paths[0]))
    return [c for c in out if (c[1] or c[2] or "").endswith(".py")]


def predecessor(repo: Path, sha: str, text: tuple[str, ...], name: str
                ) -> tuple[str, str, float] | None:
    """The definition removed in ``sha`` most like ``text`` (a rename or a move)."""
    best: tuple[str, str, float] | None = None
    for _, old_path, new_path in file_changes(repo, sha):
        if old_path is None:
            continue
        before = show(repo, f"{sha}^", old_path)
        after = show(repo, sha, new_path) if new_path else None
        old_defs = definitions(before) if before else None
        new_defs = (definitions(after) if after else {}) or {}
        for (kind, qualname), body in (old_defs or {}).items():
            if kind != "function" or ((kind, qualname) in new_defs and new_path == old_path):
                continue
            score = difflib.SequenceMatcher(
                None, _blank(body, qualname.rsplit(".", 1)[-1]), _blank(text, name)).ratio()
            if score >= MATCH_MIN and (best is None or score > best[2]):
                best = (old_path, qualname, score)
    return best


def history(repo: Path, path: str, qualname: str, rev: str = "HEAD",
            depth: int = 0, top: str = "HEAD") -> list[dict[str, Any]]:
    name = qualname.rsplit(".", 1)[-1]
    span = _span(show(repo, rev, path), qualname)  # None for a py2-era version: the
    candidates: list[str] = []  # file's own commits (--follow, below) are judged anyway
    if span is not None:
        log = git(repo, "log", f"-L{span[0]},{span[1]}:{path}", "--no-merges",
                  "--format=@@%H", rev)
        candidates = [line[2:] for line in log.splitlines() if line.startswith("@@")]
    follow = git(repo, "log", "--follow", "--no-merges", "--name-status", "--format=@@%H",
                 rev, "--", path)
    path_at: dict[str, str] = {}
    renamed: set[str] = set()
    current = None
    for line in follow.splitlines():
        if line.startswith("@@"):
            current = line[2:]
        elif current and line.strip():
            status, *paths = line.split("\t")
            path_at[current] = paths[-1]
            if status.startswith("R"):
                renamed.add(current)
    events: list[dict[str, Any]] = []
    last_text: tuple[str, ...] | None = None  # the definition's text before the last event
    newer = rev
    order = {sha: index for index, sha in enumerate(
        line[2:] for line in follow.splitlines() if line.startswith("@@"))}
    # Every commit that touched the file is judged (line-log alone misses a deletion at
    # the end of the tracked range: a dead last line removed from a function).
    ordered = sorted(dict.fromkeys([*candidates, *renamed, *order]),
                     key=lambda c: order.get(c, len(order)))  # newest first, as git logs
    for sha in ordered:
        at = path_at.get(sha, path)
        new = own(repo, sha, at, qualname)
        if new is None and _unreadable(repo, sha, at):
            # A version no parser here reads (committed broken code): what changed is not
            # known; the scorer leaves the commit out of both sides.
            events.append({"commit": sha, "kind": "unreadable", "path": at,
                           "qualname": qualname})
            continue
        if new is None and last_text is not None:
            # Not under this name here: renamed in place (or its class was) between this
            # commit and the newer one; -L follows the lines, not the name.
            found = _same_file_name(repo, sha, at, last_text, name)
            if found is None:
                continue
            boundary = _renamed_at(repo, sha, newer, at, qualname, found)
            if boundary is None:
                continue
            events.append({"commit": boundary, "kind": "moved", "path": at,
                           "qualname": qualname, "previous_path": at,
                           "previous_qualname": found, "how": "renamed in place"})
            qualname, name = found, found.rsplit(".", 1)[-1]
            new = own(repo, sha, at, qualname)
        if new is None:
            continue
        before_path = at
        if sha in renamed:
            changes = {n: o for s, o, n in file_changes(repo, sha) if s == "R" and n and o}
            before_path = changes.get(at, at)
        old = own(repo, f"{sha}^", before_path, qualname) if _has_parent(repo, sha) else None
        if old is None and _unreadable(repo, f"{sha}^", before_path):
            events.append({"commit": sha, "kind": "unreadable", "path": at,
                           "qualname": qualname})
            last_text, newer = new, sha
            continue
        last_text, newer = old, sha
        if old is None:
            event: dict[str, Any] = {"commit": sha, "kind": "added", "path": at,
                                     "qualname": qualname}
            found_move = predecessor(repo, sha, new, name) if depth < 6 else None
            if found_move is not None:
                old_path, old_q, score = found_move
                event.update(kind="moved", previous_path=old_path, previous_qualname=old_q,
                             similarity=round(score, 3))
                events.append(event)
                events.extend(history(repo, old_path, old_q, f"{sha}^", depth + 1, top))
                events.extend(parallel(repo, top, sha, old_path, old_q))
                break
            events.append(event)
            break  # the origin: anything older under these lines is another definition
        if before_path != at:
            events.extend(parallel(repo, top, sha, before_path, qualname))
            events.append({"commit": sha, "kind": "moved", "path": at, "qualname": qualname,
                           "previous_path": before_path, "previous_qualname": qualname,
                           "also_modified": old != new})
        elif old != new:
            events.append({"commit": sha, "kind": "modified", "path": at, "qualname": qualname})
    return events


def parallel(repo: Path, top: str, boundary: str, old_path: str, qualname: str
             ) -> list[dict[str, Any]]:
    """Edits of the definition at its old place on a branch parallel to ``boundary`` (the
    commit that moved it away): reachable from ``top``, neither an ancestor nor a
    descendant of the boundary, so the move had not happened in that branch's history (a
    maintenance branch still editing ``pip/req.py`` after the main line split it). The
    walk from ``boundary^`` sees only the boundary's ancestors; these are judged the same
    way (own text at the commit and its parent)."""
    after = set(git(repo, "rev-list", "--ancestry-path", f"{boundary}..{top}").split())
    out: list[dict[str, Any]] = []
    for sha in git(repo, "rev-list", "--no-merges", "--full-history", top, f"^{boundary}",
                   "--", old_path).split():
        if sha in after or not _has_parent(repo, sha):
            continue
        new, old = own(repo, sha, old_path, qualname), own(repo, f"{sha}^", old_path, qualname)
        if new is not None and old is not None and new != old:
            out.append({"commit": sha, "kind": "modified", "path": old_path,
                        "qualname": qualname, "branch": f"parallel to {boundary[:12]}"})
    return out


def _annotate(events: list[dict[str, Any]], notes: dict[str, str] | None = None) -> None:
    table = {**NOTES, **(notes or {})}
    for event in events:
        if event["kind"] in ("added", "moved", "unreadable") or "branch" in event:
            event["validated"] = table.get(event["commit"][:12], _automatic(event))


def _automatic(event: dict[str, Any]) -> str:
    if "branch" in event:
        return (f"edit on a branch {event['branch']} (the move to a new place had not happened "
                "there; own text differs from the parent's); read for pip's 1.5.X branch")
    if event["kind"] == "added":
        return ("no definition of this name at the parent, none removed in the commit with "
                f"own-text similarity >= {MATCH_MIN}: the definition's origin")
    if event["kind"] == "unreadable":
        return "a side neither ast nor lib2to3 parses: left out of the scoring"
    if "similarity" in event:
        return f"removed definition in the same commit, own-text similarity {event['similarity']}"
    return "git renamed the file (diff-tree -M / log --follow); the definition kept its name"


def _unreadable(repo: Path, rev: str, path: str) -> bool:
    """The file exists at ``rev`` but neither parser reads it."""
    return show(repo, rev, path) is not None and _definitions_at(repo, rev, path) is None


def _same_file_name(repo: Path, sha: str, path: str, text: tuple[str, ...],
                    name: str) -> str | None:
    source = show(repo, sha, path)
    defs = definitions(source) if source else None
    best: tuple[float, str] | None = None
    for (kind, qualname), body in (defs or {}).items():
        if kind != "function":
            continue
        score = difflib.SequenceMatcher(None, _blank(body, qualname.rsplit(".", 1)[-1]),
                                        _blank(text, name)).ratio()
        if score >= MATCH_MIN and (best is None or score > best[0]):
            best = (score, qualname)
    return None if best is None else best[1]


def _renamed_at(repo: Path, older: str, newer: str, path: str, new_q: str,
                old_q: str) -> str | None:
    """The commit in older..newer where ``path`` stops having ``old_q`` and has ``new_q``."""
    for sha in git(repo, "log", "--no-merges", "--reverse", "--format=%H",
                   f"{older}..{newer}", "--", path).split():
        if own(repo, sha, path, new_q) is not None and own(repo, sha, path, old_q) is None:
            return sha
    return None


def _span(source: bytes | None, qualname: str) -> tuple[int, int] | None:
    """First decorator line .. last line of ``qualname`` in ``source`` (ast)."""
    if source is None:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for kind, found, node, _ in _walk(tree.body, ""):
        if kind == "function" and found == qualname:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return first, node.end_lineno or node.lineno
    return None


def _has_parent(repo: Path, sha: str) -> bool:
    return bool(git(repo, "rev-list", "--parents", "-n1", sha).split()[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="?")
    parser.add_argument("--only", default=None)
    parser.add_argument("--annotate", action="store_true",
                        help="only (re)write each boundary's validation note")
    parser.add_argument("--truth", type=Path,
                        default=Path(__file__).resolve().parent / "lineage_truth.json",
                        help="the truth file written (its `targets` replace TARGETS and its "
                             "`notes` take precedence over NOTES, when present)")
    args = parser.parse_args()
    out_path = args.truth
    if args.annotate:
        truth = json.loads(out_path.read_text())
        for function in truth["functions"]:
            _annotate(function["events"], truth.get("notes"))
        out_path.write_text(json.dumps(truth, indent=1) + "\n")
        return 0
    if args.corpus is None:
        parser.error("name a corpus clone")
    name = args.corpus.name
    attributes = args.corpus / ".git" / "info" / "attributes"
    attributes.parent.mkdir(exist_ok=True)
    attributes.write_text("*.py diff=python\n")
    truth = json.loads(out_path.read_text()) if out_path.exists() else {"functions": []}
    targets = {corpus: [(p, q) for p, q in listed]
               for corpus, listed in truth.get("targets", TARGETS).items()}
    kept = [f for f in truth["functions"] if f["corpus"] != name or (
        args.only is not None and f["qualname"] != args.only)]
    for path, qualname in targets[name]:
        if args.only is not None and qualname != args.only:
            continue
        events = history(args.corpus, path, qualname)
        seen: dict[str, dict[str, Any]] = {}
        for event in events:
            seen.setdefault(event["commit"], event)
        locator = f"python:function:{dotted(path)}.{qualname}"
        _annotate(list(seen.values()), truth.get("notes"))
        entry = {"corpus": name, "locator": locator, "path": path, "qualname": qualname,
                 "events": list(seen.values())}
        kept.append(entry)
        kinds = [e["kind"] for e in entry["events"]]
        print(f"{locator}: {len(kinds)} commits "
              f"({', '.join(f'{k} {kinds.count(k)}' for k in sorted(set(kinds)))})")
        for event in entry["events"]:
            if event["kind"] == "moved":
                print(f"    {event['commit'][:12]} {event['previous_path']}:"
                      f"{event['previous_qualname']} -> {event['path']}:{event['qualname']} "
                      f"{event.get('similarity', '')}")
    truth["functions"] = sorted(kept, key=lambda f: (f["corpus"], f["locator"]))
    out_path.write_text(json.dumps(truth, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
