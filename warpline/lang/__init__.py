"""The table of languages: one row per language warpline reads at entity level.

A row names the language's file suffixes, how a repo-relative path becomes its module
(``module``: the path, and for some languages a manifest of the same tree such as Rust's
``Cargo.toml``), its reader (source bytes -> ``FileEntities``, the structure the diff
mapping, lineage and merge rules read for every language), its locator prefix and how its
own kinds map to the wire's four (``file module class function``). Nothing outside this
package decides which language a file is.

Adding a language: a row here, a reader module (usually a query file under ``queries/``
and a naming function) and its tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from warpline.git.hunks import Hunk
    from warpline.lang.codekey import CodeKey
    from warpline.lang.entities import EntityKey, FileEntities, Window
    from warpline.lang.tsdefs import Edit

__all__ = [
    "LANGUAGES",
    "LOCATOR_HEAD",
    "UNREAD_CODE",
    "Files",
    "Language",
    "WireKind",
    "by_locator",
    "by_name",
    "describe_locator",
    "language_of",
    "read_only_as_files",
    "source_module",
]

WireKind = Literal["file", "module", "class", "function"]


class Files(Protocol):
    """The small files of one version of the repository (a commit's tree, the work tree),
    read by path: the manifests a module name depends on (``Cargo.toml``)."""

    def read(self, path: str) -> bytes | None: ...


class Reader(Protocol):
    """Source -> definitions (None: unreadable). ``edit`` says how the source was made from
    a version read before, for readers that re-parse incrementally."""

    def __call__(self, source: bytes, edit: Edit | None = None) -> FileEntities | None: ...


class Reparser(Protocol):
    """The new version of a file from the definitions of an old one and the diff's hunks,
    re-parsing only what the edit touched: (definitions or None when unreadable, the
    matching line ranges of the two versions or None: compare whole files)."""

    def __call__(self, old: FileEntities, source: bytes, lines: list[bytes],
                 hunks: Sequence[Hunk]) -> tuple[FileEntities | None,
                                                 Sequence[Window] | None]: ...


class CommentLinesOf(Protocol):
    """One definition's span (its lines as written, its own kind) -> the indexes of the
    lines holding comments only: what lineage's texts leave out (``lang/commentlines.py``).
    """

    def __call__(self, text: list[bytes], kind: str) -> frozenset[int]: ...


class CodeKeyOf(Protocol):
    """One version of one definition -> what its code is apart from comments and layout
    (``warpline.lang.codekey``); None: unreadable."""

    def __call__(self, lines: list[bytes], entities: FileEntities,
                 key: EntityKey) -> CodeKey | None: ...


@dataclass(frozen=True, slots=True)
class Language:
    """One row: how files of one language are recognised, named and read."""

    name: str  # the wire's ``language``
    prefix: str  # the locator prefix (``rust`` in ``rust:struct:…``)
    suffixes: tuple[str, ...]
    kinds: Mapping[str, WireKind]  # the language's own kinds -> the wire's
    module: Callable[[str, Files | None], str | None]  # path -> module name (None: none)
    read: Reader
    # Edits are re-parsed statement by statement (Python's ``pyincremental``): the cache
    # derives the new version from the old one's definitions. Others parse the new version
    # (a tree-sitter reader from the old version's tree: ``read``'s ``edit``).
    reparse: Reparser | None = None
    label: str = ""  # the wire's ``language`` when it is not ``name`` (tsx: typescript)
    # A parameter is written type first (Java's ``List<String> xs``): lineage's
    # parameter-position rule takes its last word as the name, else its first.
    type_first_params: bool = False
    # The module is the directory's, shared by its files (a Go or Java package): a file
    # added to (removed from) a directory that has (keeps) another such file modifies it.
    shared_module: bool = False
    # The project's own test command, the way its ecosystem runs a whole suite. Only
    # Python's tests are selected (pytest) so far; for the others an answer names this as
    # what to run instead of proposing a runner the repository does not use.
    test_command: str = ""
    # Manifests a module name reads (``Cargo.toml``, ``go.mod``): a commit changing one
    # renames the modules below it, also in files it does not touch (``git/manifests.py``).
    manifests: tuple[str, ...] = ()
    # What a definition's code is apart from comments and layout (a change's nature);
    # None: the row's changes have an unknown nature.
    code_key: CodeKeyOf | None = None
    # Which lines of a definition's span are comments only (lineage compares the rest).
    comment_lines: CommentLinesOf | None = None
    # The files whose module a file's presence renames (a TypeScript file's same-stem
    # siblings of a lower rank): a commit adding or removing it renames theirs.
    siblings: Callable[[str], tuple[str, ...]] | None = None

    @property
    def incremental(self) -> bool:
        return self.reparse is not None

    @property
    def wire_name(self) -> str:
        return self.label or self.name

    def locator(self, key: EntityKey, module: str) -> str:
        kind, qualname = key
        if not qualname:
            return f"{self.prefix}:{kind}:{module}"
        return f"{self.prefix}:{kind}:{module}.{qualname}"

    def key_of(self, locator: str, module: str) -> EntityKey:
        """The entity key of one of this language's locators in ``module``."""
        kind, _, rest = locator[len(self.prefix) + 1 :].partition(":")
        return (kind, rest[len(module) + 1 :])

    def wire_kind(self, key: EntityKey) -> WireKind:
        return self.kinds[key[0]]

    def reads(self, path: str) -> bool:
        """True when ``path`` is this row's (by its suffix)."""
        return language_of(path) is self


def _python_module(path: str, files: Files | None) -> str | None:
    from warpline.lang.locators import dotted_module

    return dotted_module(path)


def _python_read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    from warpline.lang.pyentities import parse_entities

    return parse_entities(source)  # its edits are ``_python_reparse``'s


def _python_reparse(old: FileEntities, source: bytes, lines: list[bytes],
                    hunks: Sequence[Hunk]) -> tuple[FileEntities | None,
                                                    Sequence[Window] | None]:
    from warpline.lang.pyincremental import reparse

    return reparse(old, source, lines, hunks)


def _rust_module(path: str, files: Files | None) -> str | None:
    from warpline.lang.rust import module_name

    return module_name(path, files)


def _rust_read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    from warpline.lang.rust import read

    return read(source, edit)


def _go_module(path: str, files: Files | None) -> str | None:
    from warpline.lang.golang import module_name

    return module_name(path, files)


def _go_read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    from warpline.lang.golang import read

    return read(source, edit)


def _java_module(path: str, files: Files | None) -> str | None:
    from warpline.lang.java import module_name

    return module_name(path, files)


def _java_read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    from warpline.lang.java import read

    return read(source, edit)


def _script_module(path: str, files: Files | None) -> str | None:
    from warpline.lang.script import module_name

    return module_name(path, files)


def _script_siblings(path: str) -> tuple[str, ...]:
    from warpline.lang.script import siblings

    return siblings(path)


def _js_read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    from warpline.lang.script import read_javascript

    return read_javascript(source, edit)


def _ts_read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    from warpline.lang.script import read_typescript

    return read_typescript(source, edit)


def _tsx_read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    from warpline.lang.script import read_tsx

    return read_tsx(source, edit)


def _python_key(lines: list[bytes], entities: FileEntities, key: EntityKey) -> CodeKey | None:
    from warpline.lang.pycodekey import python_key

    return python_key(lines, entities, key)


def _tokens_of(dialect: str) -> CodeKeyOf:
    def code_key(lines: list[bytes], entities: FileEntities, key: EntityKey) -> CodeKey | None:
        from warpline.lang.tokenkey import token_key

        return token_key(dialect, lines, entities, key)

    return code_key


def _python_comments(text: list[bytes], kind: str) -> frozenset[int]:
    from warpline.lang.commentlines import python_comment_lines

    return python_comment_lines(text, kind)


def _comments_of(dialect: str) -> CommentLinesOf:
    def comment_lines(text: list[bytes], kind: str) -> frozenset[int]:
        from warpline.lang.commentlines import tree_comment_lines

        return tree_comment_lines(dialect, text, kind)

    return comment_lines


_PY_KINDS: dict[str, WireKind] = {"module": "module", "class": "class", "function": "function"}
_RUST_KINDS: dict[str, WireKind] = {
    "module": "module", "function": "function", "struct": "class", "enum": "class",
    "union": "class", "trait": "class", "type_alias": "class", "impl": "class",
    "const": "function", "static": "function", "macro": "function",
}
_GO_KINDS: dict[str, WireKind] = {
    "module": "module", "function": "function", "struct": "class", "interface": "class",
    "type": "class",
}
_JAVA_KINDS: dict[str, WireKind] = {
    "module": "module", "method": "function", "constructor": "function", "class": "class",
    "interface": "class", "enum": "class", "record": "class", "annotation": "class",
}
_SCRIPT_KINDS: dict[str, WireKind] = {
    "module": "module", "function": "function", "method": "function", "class": "class",
    "interface": "class", "type": "class", "enum": "class", "namespace": "module",
}

PYTHON = Language("python", "python", (".py",), _PY_KINDS, _python_module, _python_read,
                  reparse=_python_reparse, test_command="pytest", code_key=_python_key,
                  comment_lines=_python_comments)
RUST = Language("rust", "rust", (".rs",), _RUST_KINDS, _rust_module, _rust_read,
                test_command="cargo test", manifests=("Cargo.toml",),
                code_key=_tokens_of("rust"), comment_lines=_comments_of("rust"))
GO = Language("go", "go", (".go",), _GO_KINDS, _go_module, _go_read, shared_module=True,
              test_command="go test ./...", manifests=("go.mod",), code_key=_tokens_of("go"),
              comment_lines=_comments_of("go"))
JAVA = Language("java", "java", (".java",), _JAVA_KINDS, _java_module, _java_read,
                type_first_params=True, shared_module=True,
                test_command="mvn test (or gradle test)", code_key=_tokens_of("java"),
                comment_lines=_comments_of("java"))
# TypeScript and JavaScript share the ``ts`` prefix: a .js -> .ts migration keeps its ids.
# .tsx has a grammar of its own (JSX), reported as typescript.
TYPESCRIPT = Language("typescript", "ts", (".ts", ".mts", ".cts"), _SCRIPT_KINDS,
                      _script_module, _ts_read, test_command="npm test",
                      code_key=_tokens_of("typescript"),
                      comment_lines=_comments_of("typescript"), siblings=_script_siblings)
TSX = Language("tsx", "ts", (".tsx",), _SCRIPT_KINDS, _script_module, _tsx_read,
               label="typescript", test_command="npm test", code_key=_tokens_of("tsx"),
               comment_lines=_comments_of("tsx"), siblings=_script_siblings)
JAVASCRIPT = Language("javascript", "ts", (".js", ".jsx", ".mjs", ".cjs"), _SCRIPT_KINDS,
                      _script_module, _js_read, test_command="npm test",
                      code_key=_tokens_of("javascript"),
                      comment_lines=_comments_of("javascript"), siblings=_script_siblings)

LANGUAGES: tuple[Language, ...] = (PYTHON, RUST, GO, JAVA, TYPESCRIPT, TSX, JAVASCRIPT)
_BY_NAME = {lang.name: lang for lang in LANGUAGES}
_BY_PREFIX: dict[str, Language] = {}
for _lang in LANGUAGES:
    _BY_PREFIX.setdefault(_lang.prefix, _lang)  # a shared prefix: the first row speaks
_BY_SUFFIX = {suffix: lang for lang in LANGUAGES for suffix in lang.suffixes}


# A regex alternation matching the head of every entity locator (``core:file:``,
# ``python:class:``, ``rust:impl:`` …): what tells a locator from a qualname or a path.
LOCATOR_HEAD = "core:file:|(?:" + "|".join(sorted(_BY_PREFIX)) + "):[a-z_]+:"


def by_locator(locator: str) -> Language | None:
    """The row whose prefix a locator carries (the first of rows sharing it)."""
    return _BY_PREFIX.get(locator.partition(":")[0])


def of_change(locator: str, path: str | None) -> Language | None:
    """The row an entity (by its locator) or a changed file (by its suffix) belongs to."""
    if locator.startswith("core:file:"):
        return language_of(path or locator.removeprefix("core:file:"))
    return by_locator(locator)


def by_name(name: str) -> Language:
    return _BY_NAME[name]


def language_of(path: str) -> Language | None:
    """The row reading ``path`` (by its suffix), None for a file no row reads."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return _BY_SUFFIX.get(path[dot:])


def source_module(path: str | None, regular: bool,
                  files: Files | None) -> tuple[Language, str] | None:
    """The language and module of a regular file some row reads; None otherwise."""
    if path is None or not regular:
        return None
    lang = language_of(path)
    if lang is None:
        return None
    module = lang.module(path, files)
    return None if module is None else (lang, module)


def describe_locator(locator: str, path: str | None = None,
                     ) -> tuple[str | None, str | None]:
    """``(language, language_kind)`` of a locator: ``rust:impl:…`` -> ``("rust", "impl")``;
    a file is ``(<the row reading its suffix, or None>, "file")``; an unknown prefix
    ``(None, None)``. ``path`` (the entity's file) tells rows sharing a prefix apart."""
    prefix, _, rest = locator.partition(":")
    if prefix == "core":
        kind, _, path = rest.partition(":")
        if kind != "file":
            return (None, kind or None)
        reader = language_of(path)
        return (reader.wire_name if reader is not None else None, "file")
    lang = _BY_PREFIX.get(prefix)
    if lang is None:
        return (None, None)
    if path is not None:  # rows sharing a prefix (ts: typescript, javascript) by the file
        by_path = language_of(path)
        if by_path is not None and by_path.prefix == prefix:
            lang = by_path
    return (lang.wire_name, rest.partition(":")[0] or None)


# Source languages no row reads yet: a changed file in one of these is read only as a file,
# and answers say so (its definitions' changes are unknown, not absent).
UNREAD_CODE: dict[str, str] = {
    suffix: name
    for name, suffixes in (
        ("C", (".c", ".h")), ("C++", (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx")),
        ("C#", (".cs",)), ("Ruby", (".rb",)), ("PHP", (".php",)), ("Swift", (".swift",)),
        ("Kotlin", (".kt", ".kts")), ("Scala", (".scala",)), ("Objective-C", (".m", ".mm")),
        ("Lua", (".lua",)), ("Perl", (".pl", ".pm")), ("shell", (".sh", ".bash")),
        ("Dart", (".dart",)), ("Elixir", (".ex", ".exs")), ("Haskell", (".hs",)),
        ("Zig", (".zig",)), ("Python stub", (".pyi",)), ("Vue", (".vue",)),
        ("Svelte", (".svelte",)),
    )
    for suffix in suffixes
}


def read_only_as_files(paths: Iterable[str]) -> dict[str, list[str]]:
    """The source files among ``paths`` that no row reads, by language (sorted)."""
    out: dict[str, list[str]] = {}
    for path in paths:
        name = path.rpartition("/")[2]
        dot = name.rfind(".")
        language = UNREAD_CODE.get(name[dot:]) if dot > 0 else None
        if language is not None:
            out.setdefault(language, []).append(path)
    return {name: sorted(found) for name, found in sorted(out.items())}
