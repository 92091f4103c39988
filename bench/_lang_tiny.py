"""A tiny real history in every new language, for ``bench_lang_truth.py --tiny`` (the
bench smoke): a Go module, a Java package, a Rust crate and TypeScript/JavaScript files,
added, edited (a method, a doc comment, an overload), one renamed .js -> .ts."""

from __future__ import annotations

import subprocess
from pathlib import Path

_FIRST = {
    "go.mod": "module example.com/demo\n\ngo 1.21\n",
    "shape.go": ("package demo\n\n// Shape is a shape.\ntype Shape struct{ w int }\n\n"
                 "func (s *Shape) Area() int {\n\treturn s.w\n}\n"),
    "src/main/java/org/demo/Box.java": (
        "package org.demo;\n\npublic class Box {\n    /** Size. */\n"
        "    public int size(int x) {\n        return x;\n    }\n\n"
        "    public int size(String s) {\n        return 1;\n    }\n}\n"),
    "Cargo.toml": '[package]\nname = "demo-crate"\nversion = "0.1.0"\n',
    "src/lib.rs": ("/// A point.\npub struct Point { x: i32 }\n\nimpl Point {\n"
                   "    pub fn new() -> Self { Point { x: 1 } }\n}\n"),
    "web/app.ts": ("export class App {\n  start(): void {}\n}\n\n"
                   "export function run(n: number): number {\n  return n;\n}\n"),
    "web/old.js": "exports.helper = function (a) {\n  return a;\n};\n",
}
_SECOND = {
    "shape.go": _FIRST["shape.go"].replace("return s.w", "return s.w * 2"),
    "src/main/java/org/demo/Box.java": _FIRST["src/main/java/org/demo/Box.java"].replace(
        "return 1;", "return s.length();"),
    "src/lib.rs": _FIRST["src/lib.rs"].replace("/// A point.", "/// A point in the plane."),
    "web/app.ts": _FIRST["web/app.ts"].replace("start(): void {}", "start(): void { run(1); }"),
}


def build(path: Path) -> Path:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True)

    path.mkdir(parents=True)
    git("init", "-q")
    git("config", "user.email", "bench@example.invalid")
    git("config", "user.name", "bench")
    for message, files in (("first", _FIRST), ("second", _SECOND)):
        for name, text in files.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_text(text)
        git("add", "-A")
        git("commit", "-q", "-m", message)
    git("mv", "web/old.js", "web/old.ts")
    (path / "web/old.ts").write_text(
        "exports.helper = function (a: number) {\n  return a;\n};\n")
    git("add", "-A")
    git("commit", "-q", "-m", "migrate")
    return path
