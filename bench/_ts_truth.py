"""TypeScript and JavaScript definitions by the TypeScript compiler's own parser (npm
``typescript``, run by node: ``bench/ts_truth.js``), named in warpline's ``ts:`` dialect.

The compiler is installed beside the bench's output, git-ignored:
``npm install --prefix bench/out/node typescript@5`` (``.ci/run`` does it). Blobs are
written to a temporary directory under their file's suffix (the parser's script kind
follows it) and read in batches by one node process; results cached by blob and suffix.
A version the parser reports syntax errors for is unreadable (left out, counted).
Files under ``node_modules/`` are not read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from _lang_events import Defs
from _lang_git import Blobs

BENCH = Path(__file__).resolve().parent
NODE_DIR = BENCH / "out" / "node"
_WIRE = {"function": "function", "method": "function", "class": "class",
         "interface": "class", "type": "class", "enum": "class"}
_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (apt install nodejs)"
    if not (NODE_DIR / "node_modules" / "typescript").is_dir():
        return f"typescript is not installed (npm install --prefix {NODE_DIR} typescript@5)"
    return None


def _suffix(path: str) -> str:
    return path[path.rfind("."):]


class TsTruth:
    def __init__(self) -> None:
        self.cache: dict[tuple[str, str], list[list[object]] | None] = {}

    def covers(self, path: str) -> bool:
        return path.endswith(_SUFFIXES) and "node_modules/" not in path

    def accepts(self, locator: str) -> bool:
        return True

    def prefetch_pairs(self, blobs: Blobs, wanted: set[tuple[str, str]]) -> None:
        todo = sorted(wanted - self.cache.keys())
        with tempfile.TemporaryDirectory(prefix="lang-truth-ts-") as tmp:
            for start in range(0, len(todo), 400):
                batch = todo[start:start + 400]
                files = []
                for oid, suffix in batch:
                    file = Path(tmp) / f"{oid}{suffix}"
                    file.write_bytes(blobs.read(oid))
                    files.append([f"{oid}{suffix}", str(file)])
                    self.cache[(oid, suffix)] = None
                env = {**os.environ, "NODE_PATH": str(NODE_DIR / "node_modules")}
                done = subprocess.run(["node", str(BENCH / "ts_truth.js")],
                                      input=json.dumps(files), capture_output=True,
                                      text=True, check=True, env=env)
                for line in done.stdout.splitlines():
                    if not line.strip():
                        continue
                    found = json.loads(line)
                    oid, _, rest = str(found["id"]).partition(".")
                    if "defs" in found and not found.get("syntax_error"):
                        self.cache[(oid, "." + rest)] = found["defs"]

    def prefetch(self, blobs: Blobs, oids: set[str]) -> None:
        """Unused: blobs are read per suffix (``prefetch_pairs``)."""

    def defs(self, blobs: Blobs, oid: str, path: str, commit: str) -> Defs | bool | None:
        key = (oid, _suffix(path))
        if key not in self.cache:
            self.prefetch_pairs(blobs, {key})
        found = self.cache[key]
        if found is None:
            return None
        stem = path.rpartition(".")[0]
        out = Defs("ts", stem, lines=blobs.read(oid).decode("utf-8", "replace").split("\n"))
        for kind, qualname, first, last in found:
            wire = _WIRE.get(str(kind))
            if wire is not None:
                out.add((str(kind), str(qualname)), int(str(first)), int(str(last)), wire)
        return out
