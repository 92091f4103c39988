"""Go and Java definitions by universal-ctags (a parser that is not tree-sitter), named in
warpline's ``go:`` and ``java:`` dialects (docs/languages.md) from ctags' own fields.

``ctags --fields=+neKS --output-format=json`` over every blob wanted, in batches (blobs
written to a temporary directory as ``<oid>.go``/``<oid>.java``), cached by blob id.
Kept: tags with an end line of kind func / struct / interface / type / talias (Go) and
method / class / interface / enum / annotation (Java). The first line moves up over the
comment block (and Java annotations) directly above: DESIGN section 4 gives those lines
to the definition, and ctags reports the line of the declaration's name (for Java also
over a declaration's earlier lines: type parameters and return type on a line of their
own, annotations over several lines).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from _lang_events import Defs
from _lang_git import Blobs, tree_file

_GO_KINDS = {"func": ("function", "function"), "struct": ("struct", "class"),
             "interface": ("interface", "class"), "type": ("type", "class"),
             "talias": ("type", "class")}
_JAVA_KINDS = {"method": ("method", "function"), "class": ("class", "class"),
               "interface": ("interface", "class"), "enum": ("enum", "class"),
               "annotation": ("annotation", "class"), "record": ("record", "class")}
_MODIFIERS = re.compile(r"^(final\s+|@\w+(\.\w+)*(\([^)]*\))?\s+)+")


class CtagsTruth:
    """Tags per blob for one language, read in batches and cached by blob id."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.suffix = ".go" if language == "go" else ".java"
        self.cache: dict[str, list[dict[str, Any]]] = {}

    def covers(self, path: str) -> bool:
        return path.endswith(self.suffix)

    def accepts(self, locator: str) -> bool:
        return True

    def prefetch(self, blobs: Blobs, oids: set[str]) -> None:
        wanted = sorted(oids - self.cache.keys())
        with tempfile.TemporaryDirectory(prefix="lang-truth-ctags-") as tmp:
            for start in range(0, len(wanted), 500):
                batch = wanted[start:start + 500]
                for oid in batch:
                    (Path(tmp) / f"{oid}{self.suffix}").write_bytes(blobs.read(oid))
                    self.cache[oid] = []
                done = subprocess.run(
                    ["ctags", "--fields=+neKS", "--output-format=json", "-f", "-", "-L", "-"],
                    cwd=tmp, input="\n".join(f"{oid}{self.suffix}" for oid in batch),
                    capture_output=True, text=True, check=False, errors="replace")
                for line in done.stdout.splitlines():
                    if not line.startswith("{"):
                        continue
                    tag = json.loads(line)
                    oid = str(tag.get("path", "")).removesuffix(self.suffix)
                    if oid in self.cache:
                        self.cache[oid].append(tag)

    def defs(self, blobs: Blobs, oid: str, path: str, commit: str) -> Defs:
        if oid not in self.cache:
            self.prefetch(blobs, {oid})
        lines = blobs.read(oid).decode("utf-8", "replace").split("\n")
        tags = self.cache[oid]
        if self.language == "go":
            out = Defs("go", go_module(blobs, commit, path), lines=lines)
            for tag in tags:
                kind = _GO_KINDS.get(str(tag.get("kind")))
                if kind is None or not isinstance(tag.get("end"), int):
                    continue
                name = str(tag["name"])
                if kind[0] == "function" and tag.get("scopeKind") not in (None, "package"):
                    name = f"{_go_receiver(str(tag.get('scope', '')))}.{name}"
                out.add((kind[0], name), _leading(lines, int(tag["line"]), java=False),
                        int(tag["end"]), kind[1])
            return out
        package = next((str(t["name"]) for t in tags if t.get("kind") == "package"), None)
        out = Defs("java", package or java_module(path), lines=lines)
        for tag in tags:
            kind = _JAVA_KINDS.get(str(tag.get("kind")))
            if kind is None or not isinstance(tag.get("end"), int):
                continue
            name = str(tag["name"])
            scope = str(tag.get("scope", ""))
            language_kind = kind[0]
            if language_kind == "method":
                if name == scope.rsplit(".", 1)[-1]:
                    name, language_kind = "<init>", "constructor"
                name += "(" + ",".join(erase(p) for p in params(str(tag.get("signature",
                                                                               "()")))) + ")"
            qualname = f"{scope}.{name}" if scope else name
            out.add((language_kind, qualname), _leading(lines, int(tag["line"]), java=True),
                    int(tag["end"]), kind[1])
        return out


def _go_receiver(scope: str) -> str:
    """ctags' method scope ``<package>.<Recv>`` -> the receiver's base type."""
    recv = scope.split(".", 1)[-1]
    return recv.split("[", 1)[0]


def _leading(lines: list[str], first: int, java: bool) -> int:
    """The first line of the comment block (and, for Java, annotations) directly above."""
    number = first
    in_block = False
    while number > 1:
        text = lines[number - 2].strip() if number - 2 < len(lines) else ""
        if in_block:
            number -= 1
            if text.startswith("/*"):
                in_block = False
            continue
        if text.startswith("//") or (text.startswith("/*") and text.endswith("*/")):
            number -= 1
        elif text.endswith("*/"):
            in_block = True
            number -= 1
        elif java and (text.startswith("@") or (text and not text.endswith((";", "{", "}")))):
            # An annotation, or the rest of a declaration or multi-line annotation ctags
            # does not start at (it reports the name's line: ``<T> Map<K, V>\n name(``).
            number -= 1
        else:
            break
    return number


def params(signature: str) -> list[str]:
    """ctags' ``(A a, Map<K, V> b)`` -> the parameters, split at top-level commas."""
    inner = signature.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    out: list[str] = []
    depth = 0
    current = ""
    for char in inner:
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        if char == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        out.append(current)
    return [p.strip() for p in out if p.strip()]


def erase(param: str) -> str:
    """``final java.util.List<String> xs`` -> ``List``; ``T... xs`` -> ``T[]``."""
    text = _MODIFIERS.sub("", param.strip())
    text = re.sub(r"<[^<>]*>", "", text)
    while "<" in text:  # nested type arguments
        text = re.sub(r"<[^<>]*>", "", text)
    varargs = "..." in text
    text = re.sub(r"\s*\.{3,}\s*", " ", text)  # ctags writes ``Class<?>....`` for ``Class<?>...``
    arrays = text.count("[]")
    text = text.replace("[]", " ").replace("[ ]", " ")
    words = text.split()
    if len(words) > 1:
        words = words[:-1]  # the parameter's name
    base = words[-1] if words else text
    return base.rsplit(".", 1)[-1] + "[]" * (arrays + (1 if varargs else 0))


def go_module(blobs: Blobs, commit: str, path: str) -> str:
    """The nearest ``go.mod``'s module plus the file's directory below it, else the
    directory (``.`` at the root)."""
    directory = path.rpartition("/")[0]
    parts = directory.split("/") if directory else []
    for depth in range(len(parts), -1, -1):
        base = "/".join(parts[:depth])
        data = tree_file(blobs, commit, f"{base}/go.mod" if base else "go.mod")
        if data is None:
            continue
        for line in data.decode("utf-8", "replace").splitlines():
            words = line.split("//", 1)[0].split()
            if len(words) >= 2 and words[0] == "module":
                module = words[1].strip('"')
                rest = "/".join(parts[depth:])
                return f"{module}/{rest}" if rest else module
    return directory or "."


def java_module(path: str) -> str:
    directory = path.rpartition("/")[0]
    for root in ("src/main/java/", "src/test/java/", "src/"):
        if root in directory + "/":
            below = (directory + "/").split(root, 1)[1].strip("/")
            return below.replace("/", ".") or "(default)"
    return "(default)"
