"""warpline's Go and Java definitions at HEAD against universal-ctags' (a parser that is
not tree-sitter): names and last lines.

    python bench/bench_ctags_spans.py REPO --language go|java [--show 10]

Every ``.go``/``.java`` file tracked at HEAD is read by warpline's row and by
``ctags --fields=+neK --output-format=json``. A ctags function, method or type with an end
line is *found* when warpline has a definition of the same kind family in that file with
the same name (a Java constructor is ``<init>``) and the same last line, and whose first
line is at or above ctags' (warpline's spans start at the doc comment). Reported both
ways: ctags' definitions warpline lacks, warpline's that ctags lacks.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from warpline.lang import language_of

_KINDS = {
    "go": ({"func"}, {"struct", "interface", "type", "talias"}),
    "java": ({"method"}, {"class", "interface", "enum", "annotation", "record"}),
}
_SUFFIX = {"go": ".go", "java": ".java"}


def _ctags(repo: Path, files: list[str]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for start in range(0, len(files), 200):
        done = subprocess.run(["ctags", "--fields=+neK", "--output-format=json", "-f", "-",
                               *files[start:start + 200]], cwd=repo, capture_output=True,
                              text=True, check=False)
        out.extend(json.loads(line) for line in done.stdout.splitlines() if line.strip())
    return out


def _leaf(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1].partition("(")[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--language", choices=sorted(_KINDS), required=True)
    parser.add_argument("--show", type=int, default=10)
    args = parser.parse_args(argv)
    if shutil.which("ctags") is None:
        print("universal-ctags is not installed: nothing to compare", file=sys.stderr)
        return 1
    files = [f for f in subprocess.run(["git", "ls-files"], cwd=args.repo, capture_output=True,
                                       text=True, check=True).stdout.splitlines()
             if f.endswith(_SUFFIX[args.language])]
    functions, types = _KINDS[args.language]
    theirs: set[tuple[str, str, str, int]] = set()
    first_line: dict[tuple[str, str, str, int], int] = {}
    for tag in _ctags(args.repo, files):
        kind, end = str(tag.get("kind")), tag.get("end")
        if not isinstance(end, int) or kind not in functions | types:
            continue
        name = str(tag["name"])
        scope = str(tag.get("scope", ""))
        if kind == "method" and name == scope.rsplit(".", 1)[-1]:
            name = "<init>"
        key = (str(tag["path"]), "function" if kind in functions else "type", name, end)
        theirs.add(key)
        first_line[key] = int(str(tag["line"]))
    ours: set[tuple[str, str, str, int]] = set()
    starts: dict[tuple[str, str, str, int], int] = {}
    for path in files:
        lang = language_of(path)
        if lang is None:
            continue
        parsed = lang.read((args.repo / path).read_bytes())
        if parsed is None:
            continue
        for entity in parsed.entities:
            if entity.kind == "module":
                continue
            family = "function" if lang.wire_kind(entity.key) == "function" else "type"
            for first, last in entity.spans:
                key = (path, family, _leaf(entity.qualname), last)
                ours.add(key)
                starts[key] = min(first, starts.get(key, first))
    found = {k for k in theirs & ours if starts[k] <= first_line[k]}
    lacking = sorted(theirs - found)
    extra = sorted(ours - theirs)
    print(json.dumps({"files": len(files), "ctags": len(theirs), "warpline": len(ours),
                      "found": len(found), "recall": round(len(found) / max(len(theirs), 1), 4),
                      "precision": round(len(found) / max(len(ours), 1), 4),
                      "ctags_only": [list(k) for k in lacking[:args.show]],
                      "warpline_only": [list(k) for k in extra[:args.show]]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
