"""Rust definitions by loomweave-plugin-rust itself (its own parser, ``syn``), over the
plugin's JSON-RPC on stdio (``initialize``, then ``analyze_file`` per file).

Only files under a crate's ``src/`` are read (loomweave emits nothing for the others):
the crate is the nearest ``Cargo.toml`` above the file with a ``[package]`` in the same
commit's tree. Each file version is written into a mirror of its crate (a ``Cargo.toml``
with the crate's name, the file at its path below ``src/``, an empty ``src/lib.rs``
beside a ``main.rs`` when the commit has one: loomweave names such a binary
``<crate>@bin(<crate>)``) and analysed there; one plugin process per crate name, results
cached by blob, crate and path. A version the plugin reports a syntax error for is
unreadable. Module entities (files and inline ``mod``) are not compared.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import tomllib
from pathlib import Path
from typing import IO, Any

from _lang_events import Defs
from _lang_git import Blobs, tree_file

_WIRE = {"struct": "class", "enum": "class", "trait": "class", "type_alias": "class",
         "impl": "class", "function": "function", "const": "function", "static": "function",
         "macro": "function"}


def missing() -> str | None:
    if shutil.which("loomweave-plugin-rust") is None:
        return "loomweave-plugin-rust is not installed (pip install loomweave-plugin-rust)"
    return None


class _Plugin:
    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(["loomweave-plugin-rust"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.call("initialize", {"protocol_version": "1.0", "project_root": str(root)})
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        stdin: IO[bytes] | None = self.proc.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            length = 0
            while True:
                line = stdout.readline()
                if not line:
                    raise RuntimeError("loomweave-plugin-rust exited")
                if not line.strip():
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            reply = json.loads(stdout.read(length))
            if reply.get("id") == self.next_id:
                result: dict[str, Any] = reply.get("result") or {}
                return result

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


class _TreeFiles:
    """One commit's files by path, for warpline's module naming (``--rust-outside-src``)."""

    def __init__(self, blobs: Blobs, commit: str) -> None:
        self.blobs, self.commit = blobs, commit

    def read(self, path: str) -> bytes | None:
        return tree_file(self.blobs, self.commit, path)


class RustTruth:
    def __init__(self, outside_src: bool = False) -> None:
        # outside_src: files of a crate outside ``src/`` are read too (loomweave emits
        # nothing for them): each is analysed as if at ``src/<its path in the crate>``,
        # its items keep loomweave's names within the file, and the module is warpline's
        # (``<crate>~tests.it``): the events are the plugin's, only the module is named.
        self.outside_src = outside_src
        self.tmp = Path(tempfile.mkdtemp(prefix="lang-truth-rust-"))
        self.plugins: dict[str, tuple[_Plugin, Path]] = {}
        self.cache: dict[tuple[str, str, str, bool], Defs | None] = {}
        self.crates: dict[tuple[str, str], tuple[str, str] | None] = {}

    def covers(self, path: str) -> bool:
        return path.endswith(".rs") and (self.outside_src or "src/" in path)

    def accepts(self, locator: str) -> bool:
        if locator.startswith("rust:union:"):
            return False
        if self.outside_src:
            return ".~trait." not in locator and ".~fn." not in locator
        return "~" not in locator

    def _crate(self, blobs: Blobs, commit: str, path: str) -> tuple[str, str] | None:
        """(crate directory, crate name) of ``path`` in ``commit``'s tree."""
        parts = path.split("/")[:-1]
        for depth in range(len(parts), -1, -1):
            base = "/".join(parts[:depth])
            if (commit, base) not in self.crates:
                data = tree_file(blobs, commit, f"{base}/Cargo.toml" if base else "Cargo.toml")
                self.crates[(commit, base)] = None if data is None else ("", _name(data))
            found = self.crates[(commit, base)]
            if found is not None and found[1]:
                return base, found[1]
        return None

    def defs(self, blobs: Blobs, oid: str, path: str, commit: str) -> Defs | bool | None:
        crate = self._crate(blobs, commit, path)
        if crate is None:
            return False
        base, name = crate
        src = f"{base}/src/" if base else "src/"
        module = None
        if path.startswith(src):
            rel = path[len(src):]
        elif self.outside_src:
            rel = "outside_src/" + path[len(base) + 1 if base else 0:]
            from warpline.lang.rust import module_name

            module = module_name(path, _TreeFiles(blobs, commit))
        else:
            return False
        with_lib = rel == "main.rs" and tree_file(blobs, commit, src + "lib.rs") is not None
        key = (oid, name, rel, with_lib)
        if key not in self.cache:
            self.cache[key] = self._analyse(blobs.read(oid), name, rel, with_lib)
        found = self.cache[key]
        if found is not None and module is not None:
            found = Defs("rust", module, found.spans, found.wire, found.lines)
        return found

    def _analyse(self, source: bytes, name: str, rel: str, with_lib: bool) -> Defs | None:
        if name not in self.plugins:
            root = self.tmp / str(len(self.plugins))
            (root / "src").mkdir(parents=True)
            (root / "Cargo.toml").write_text(
                f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2021"\n')
            self.plugins[name] = (_Plugin(root), root)
        plugin, root = self.plugins[name]
        file = root / "src" / rel
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(source)
        lib = root / "src" / "lib.rs"
        if with_lib:
            lib.write_bytes(b"")
        try:
            result = plugin.call("analyze_file", {"file_path": str(file)})
        finally:
            file.unlink()
            if with_lib:
                lib.unlink(missing_ok=True)
        if any(str(f.get("subcode", "")).endswith("SYNTAX-ERROR")
               for f in result.get("findings", [])):
            return None
        entities = result.get("entities", [])
        modules = [str(e["id"]).split(":", 2)[2] for e in entities if e["kind"] == "module"]
        if not modules:
            return None
        module = min(modules, key=len)
        out = Defs("rust", module, lines=source.decode("utf-8", "replace").split("\n"))
        for entity in entities:
            wire = _WIRE.get(entity["kind"])
            if wire is None:
                continue
            rest = str(entity["id"]).split(":", 2)[2]
            span = entity["source"]["source_range"]
            out.add((entity["kind"], rest[len(module) + 1:]), int(span["start_line"]),
                    int(span["end_line"]), wire)
        return out

    def close(self) -> None:
        for plugin, _ in self.plugins.values():
            plugin.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _name(cargo: bytes) -> str:
    """``[package].name`` with ``-`` -> ``_``; empty for a manifest without a package."""
    text = cargo.decode("utf-8", "replace")
    try:
        package = tomllib.loads(text).get("package")
        name = package.get("name") if isinstance(package, dict) else None
    except tomllib.TOMLDecodeError:
        match = re.search(r'^\[package\][^\[]*?^name\s*=\s*"([^"]+)"', text, re.M | re.S)
        name = match[1] if match else None
    return str(name).replace("-", "_") if isinstance(name, str) else ""
