"""Every file kind of the synthetic project: its model, its bytes, and its small edits.

A file is an immutable ``FileEntry`` (kind, model, blob id, mode); editing one renders the
new model, writes the blob and returns a new entry.
"""

from __future__ import annotations

import random
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import pygit2
from _gen_edits import CAPPED_EDITS, PY_EDITS, TEST_EDITS, mass_edit, pick_edit
from _gen_python import NOUNS, VERBS, Module, render

BLOB = 0o100644
EXEC = 0o100755


@dataclass(frozen=True, slots=True)
class FileEntry:
    kind: str  # py | md | toml | lines | bin
    model: Any
    oid: pygit2.Oid
    mode: int = BLOB
    lines: int = 0


def to_bytes(kind: str, model: Any) -> bytes:
    if kind == "py":
        return render(model)
    if kind == "md":
        return ("\n\n".join(model) + "\n").encode()
    if kind == "toml":
        version, deps, name = model
        dep_lines = "".join(f'    "{d}",\n' for d in deps)
        return (f'[project]\nname = "{name}"\nversion = "{version}"\n'
                f'requires-python = ">=3.9"\ndependencies = [\n{dep_lines}]\n').encode()
    if kind == "lines":
        return ("\n".join(model) + "\n").encode()
    return _png(model)


def _png(seed: int) -> bytes:
    """PNG-ish: a real signature and chunk framing around incompressible bytes."""
    rng = random.Random(seed)
    data = rng.randbytes(rng.randint(1500, 24000))

    def chunk(tag: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + tag + body
                + struct.pack(">I", zlib.crc32(tag + body)))

    head = struct.pack(">IIBBBBB", 64, 64, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def make(repo: pygit2.Repository, kind: str, model: Any, mode: int = BLOB) -> FileEntry:
    data = to_bytes(kind, model)
    return FileEntry(kind, model, repo.create_blob(data), mode, data.count(b"\n"))


def sentence(rng: random.Random) -> str:
    words = [rng.choice(NOUNS) if i % 2 else rng.choice(VERBS) for i in range(rng.randint(5, 16))]
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(1, 5)))


def new_doc(rng: random.Random, title: str) -> tuple[str, ...]:
    paras = [f"# {title}"]
    for _ in range(rng.randint(2, 8)):
        if rng.random() < 0.3:
            paras.append(f"## {rng.choice(NOUNS).capitalize()} {rng.choice(NOUNS)}s")
        paras.append(paragraph(rng))
    return tuple(paras)


def edit_model(rng: random.Random, path: str, kind: str, model: Any,
               *, sweep: bool = False, lines: int = 0) -> tuple[Any, str]:
    """One small realistic change to a file's model; ``sweep`` makes a reformat-like one."""
    what = "update"
    if kind == "py":
        assert isinstance(model, Module)
        if sweep:
            model, what = mass_edit(rng, model)
        else:
            table = TEST_EDITS if path.startswith("tests/") else PY_EDITS
            table = CAPPED_EDITS if lines > 4000 else table
            model, what = pick_edit(rng, table)(rng, model)
    elif kind == "md":
        paras = list(model)
        roll = rng.random()
        if roll < 0.5 and len(paras) > 1:
            paras[rng.randrange(1, len(paras))] = paragraph(rng)
            what = "reword docs"
        elif roll < 0.85 or len(paras) < 3:
            paras.insert(rng.randint(1, len(paras)), paragraph(rng))
            what = "document"
        else:
            del paras[rng.randrange(1, len(paras))]
            what = "trim docs"
        model = tuple(paras)
    elif kind == "toml":
        version, deps, name = model
        major, minor, patch = (int(x) for x in version.split("."))
        if rng.random() < 0.7 or len(deps) > 12:
            minor_bump = rng.random() < 0.2
            version = f"{major}.{minor + 1}.0" if minor_bump else f"{major}.{minor}.{patch + 1}"
            what = f"bump to {version}"
        else:
            lower = f"{rng.randint(1, 9)}.{rng.randint(0, 20)}"
            dep = f"{rng.choice(NOUNS)}-{rng.choice(VERBS)}>={lower}"
            deps = (*deps, dep)
            what = f"depend on {dep.split('>')[0]}"
        model = (version, deps, name)
    elif kind == "lines":
        rows = list(model)
        if rng.random() < 0.6 or len(rows) < 3:
            rows.insert(rng.randint(1, len(rows)), f"# {sentence(rng)}")
        else:
            rows[rng.randrange(1, len(rows))] = f"echo {rng.choice(NOUNS)}-{rng.randint(0, 99)}"
        model = tuple(rows)
    else:
        model = rng.randrange(1 << 30)
        what = "refresh image"
    return model, what
