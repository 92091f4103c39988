"""TypeScript and JavaScript entities (warpline/lang/script.py): one ``ts:`` dialect, the
definitions JavaScript names by assignment, and a .js -> .ts migration keeping its ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo
from warpline.lang import describe_locator, language_of
from warpline.lang.script import module_name, read_javascript, read_tsx, read_typescript

ROUTER = """\
'use strict';

var methods = require('methods');

/**
 * Create a router.
 */
function Router(options) {
  var opts = options || {};
  return opts;
}

Router.prototype.route = function route(path) {
  return path;
};

exports.handle = function (req, res) {
  res.end();
};

module.exports = Router;

describe('router', function () {
  it('routes', function () {
    Router();
  });
});
"""

TYPED = """\
export function parse(input: string): number;
export function parse(input: number): number;
export function parse(input: any): number {
  return Number(input);
}

export class Box {
  @observed
  get size(): number { return 1; }
  set size(v: number) {}

  open(): void {}
}

export interface Options { retry: number }
export type Mode = 'a' | 'b';
export default () => 1;
"""


def _keys(parsed: object) -> dict[tuple[str, str], tuple[tuple[int, int], ...]]:
    assert parsed is not None
    return {e.key: e.spans for e in parsed.entities}  # type: ignore[attr-defined]


def test_modules_are_paths_without_extension_under_one_prefix() -> None:
    assert module_name("lib/router/index.js", None) == "lib/router/index"
    assert module_name("source/core/index.ts", None) == "source/core/index"
    ts, js, tsx = language_of("a.ts"), language_of("a.js"), language_of("a.tsx")
    assert ts is not None and js is not None and tsx is not None
    assert ts.prefix == js.prefix == tsx.prefix == "ts"
    assert describe_locator("ts:function:lib/a.f", "lib/a.js") == ("javascript", "function")
    assert describe_locator("ts:class:lib/a.B", "lib/a.tsx") == ("typescript", "class")


def test_javascript_definitions_named_by_assignment() -> None:
    keys = _keys(read_javascript(ROUTER.encode()))
    assert keys[("function", "Router")] == ((5, 11),)  # its JSDoc belongs to it
    assert ("function", "Router.route") in keys  # X.prototype.m
    assert ("function", "handle") in keys  # exports.f
    # Test bodies are anonymous callbacks: not entities (their lines are the module's).
    assert set(keys) == {("module", ""), ("function", "Router"), ("function", "Router.route"),
                         ("function", "handle")}


def test_overloads_and_accessor_pairs_are_one_entity() -> None:
    keys = _keys(read_typescript(TYPED.encode()))
    assert keys[("function", "parse")] == ((1, 1), (2, 2), (3, 5))
    assert keys[("method", "Box.size")] == ((8, 9), (10, 10))  # the decorator belongs
    assert ("interface", "Options") in keys and ("type", "Mode") in keys
    assert ("function", "default") in keys
    jsx = b"export class App { render() { return <div/>; } }\n"
    assert ("class", "App") in _keys(read_tsx(jsx))


_changes, _events = langwalk.changes, langwalk.events


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def test_a_js_to_ts_rename_keeps_every_id(repo: FixtureRepo) -> None:
    repo.commit({"source/router.js": ROUTER})
    migrated = ROUTER.replace("function Router(options) {", "function Router(options: any) {")
    changes = _changes(repo, repo.commit({"source/router.ts": migrated},
                                         renames={"source/router.js": "source/router.ts"}))
    events = _events(changes)
    assert events["ts:function:source/router.Router"][:2] == ("moved", "function")
    assert events["ts:function:source/router.Router"][2] == "ts:function:source/router.Router"
    moved = {c.locator: c for c in changes.changes if c.locator.startswith("ts:")}
    assert moved["ts:function:source/router.Router"].also_modified
    assert not moved["ts:function:source/router.handle"].also_modified
    assert all(c.change_kind == "moved" for c in moved.values())


def test_an_edit_marks_the_method_and_a_move_across_files_keeps_lineage(
        repo: FixtureRepo) -> None:
    repo.commit({"src/a.ts": TYPED, "src/b.ts": "export const x = 1;\n"})
    edited = _events(_changes(repo, repo.commit(
        {"src/a.ts": TYPED.replace("open(): void {}", "open(): void { this.size = 2; }")})))
    assert edited == {"ts:method:src/a.Box.open": ("modified", "function", None)}
    parse_fn = TYPED[:TYPED.index("export class")]
    moved = _events(_changes(repo, repo.commit({
        "src/a.ts": TYPED.replace(parse_fn, ""),
        "src/b.ts": "export const x = 1;\n\n" + parse_fn})))
    assert moved["ts:function:src/b.parse"] == ("moved", "function", "ts:function:src/a.parse")


def test_a_syntax_error_keeps_intact_definitions(repo: FixtureRepo) -> None:
    repo.commit({"src/a.ts": TYPED})
    broken = _changes(repo, repo.commit({"src/a.ts": TYPED.replace(
        "open(): void {}", "open(): void { return 2; }") + "\nfunction (( {\n"}))
    assert broken.unparsed_files == ()
    assert _events(broken)["ts:method:src/a.Box.open"][0] == "modified"


def test_nesting_deeper_than_recursion_allows_is_unreadable_not_a_crash() -> None:
    deep = "".join(f"function f{i}() {{\n" for i in range(3000)) + "}\n" * 3000
    assert read_javascript(deep.encode()) is None
    deep = "".join(f"function f{i}() {{\n" for i in range(150)) + "}\n" * 150
    assert read_javascript(deep.encode()) is None  # past MAX_DEPTH: painting would recurse
    shallow = "".join(f"function f{i}() {{\n" for i in range(50)) + "}\n" * 50
    assert read_javascript(shallow.encode()) is not None


def test_a_comment_after_code_on_the_line_above_is_not_a_nested_definitions(
        repo: FixtureRepo) -> None:
    # got's ``_write(…): void { // eslint-disable-line …`` with ``const write = () =>``
    # on the next line: the comment belongs to the method's header line, so editing it
    # modifies the method, not the nested definition.
    source = ("class Request {\n"
              "  _write(chunk: unknown): void { // eslint-disable-line ban-types\n"
              "    const write = (): void => {\n"
              "      this.push(chunk);\n"
              "    };\n"
              "    write();\n"
              "  }\n"
              "}\n")
    repo.commit({"src/index.ts": source})
    edited = _events(_changes(repo, repo.commit(
        {"src/index.ts": source.replace("ban-types", "no-restricted-types")})))
    assert edited == {"ts:method:src/index.Request._write": ("modified", "function", None)}


ERRORS = """\
'use strict';

function stdError(error, opts) {
  const where = opts.host + opts.path;
  const code = error.code || 'E_UNKNOWN';
  const message = `${code} at ${where}`;
  log(message, opts.method);
  record(code, where);
  notify(opts.hooks, message);
}

module.exports.stdError = stdError;
"""

CLASSY = """\
'use strict';

class StdError extends Error {
  constructor(error, opts) {
    const where = opts.host + opts.path;
    const code = error.code || 'E_UNKNOWN';
    const message = `${code} at ${where}`;
    log(message, opts.method);
    record(code, where);
    notify(opts.hooks, message);
  }
}

module.exports.StdError = StdError;
"""

VIEW_JS = """\
function View(name, options) {
  this.name = name;
  this.root = options.root;
  this.ext = extname(name);
}

View.prototype.lookup = function lookup(name) {
  var path = resolve(this.root, name);
  var stat = tryStat(path);
  if (stat && stat.isFile()) {
    return path;
  }
  return undefined;
};
"""

VIEW_TS = """\
export class View {
  constructor(name: string, options: Options) {
    this.name = name;
    this.root = options.root;
    this.ext = extname(name);
  }

  lookup(name: string): string | undefined {
    var path = resolve(this.root, name);
    var stat = tryStat(path);
    if (stat && stat.isFile()) {
      return path;
    }
    return undefined;
  }
}
"""


def test_a_function_rewritten_as_a_class_constructor_keeps_its_lineage(
        repo: FixtureRepo) -> None:
    """got's ``function stdError`` became ``class StdError``'s constructor (359a5d1): a
    function and a method are one family, so the constructor carries the history."""
    repo.commit({"lib/errors.js": ERRORS})
    events = _events(_changes(repo, repo.commit({"lib/errors.js": CLASSY})))
    assert events["ts:method:lib/errors.StdError.constructor"] == (
        "moved", "function", "ts:function:lib/errors.stdError")
    assert "ts:function:lib/errors.stdError" not in events


def test_prototype_methods_becoming_class_methods_in_a_js_to_ts_migration_keep_lineage(
        repo: FixtureRepo) -> None:
    """``View.prototype.lookup = function`` (a function) -> ``class View { lookup() }`` (a
    method) in the same .js -> .ts rename: the method and the constructor keep the
    history of the assignment and of the constructor function."""
    repo.commit({"lib/view.js": VIEW_JS})
    events = _events(_changes(repo, repo.commit({"lib/view.ts": VIEW_TS},
                                                renames={"lib/view.js": "lib/view.ts"})))
    assert events["ts:method:lib/view.View.lookup"] == (
        "moved", "function", "ts:function:lib/view.View.lookup")
    assert events["ts:method:lib/view.View.constructor"] == (
        "moved", "function", "ts:function:lib/view.View")
    assert events["ts:class:lib/view.View"][0] == "added"


def test_a_definition_renamed_while_moved_across_files_keeps_lineage(
        repo: FixtureRepo) -> None:
    """got's b54b680: ``const getBodySize = async options => {…}`` cut from index.js and
    pasted into get-body-size.js as ``module.exports = async options => {…}``."""
    body = ("  const {body} = options;\n  if (options.headers['content-length']) {\n"
            "    return Number(options.headers['content-length']);\n  }\n"
            "  if (!body && !options.stream) {\n    return 0;\n  }\n"
            "  return Buffer.byteLength(body);\n")
    repo.commit({"source/index.js": f"const getBodySize = async options => {{\n{body}}};\n\n"
                                    "module.exports = got;\n"})
    events = _events(_changes(repo, repo.commit({
        "source/index.js": "module.exports = got;\n",
        "source/get-body-size.js": f"module.exports = async options => {{\n{body}}};\n"})))
    assert events["ts:function:source/get-body-size.default"] == (
        "moved", "function", "ts:function:source/index.getBodySize")


PROGRESS_BODY = """\
        progressInterval = setInterval(() => {
          if (socket.destroyed) {
            clearInterval(progressInterval);
            return;
          }
          const lastUploaded = uploaded;
          uploaded = socket.bytesWritten - headersSize(req);
          if (uploaded === lastUploaded) {
            return;
          }
          emitter.emit('uploadProgress', {transferred: uploaded, total: size});
        }, 150);
"""


def test_a_nested_function_moved_into_a_new_method_pairs_with_its_namesake(
        repo: FixtureRepo) -> None:
    """got's 58c12de: onSocketConnect, nested in get's callback, moved with the code
    around it into ``module.exports = {upload() {…}}``: it pairs with the
    ``upload.onSocketConnect`` there, not with the method around it (top-level pairs keep
    their kind; only what is left pairs across functions and methods)."""
    inner = ("    const onSocketConnect = () => {\n" + PROGRESS_BODY + "    };\n"
             "    if (socket.connecting) {\n      socket.once('connect', onSocketConnect);\n"
             "    } else {\n      onSocketConnect();\n    }\n")
    old = ("function get(options) {\n  const emitter = makeEmitter(options);\n"
           "  emitter.on('request', req => {\n    let uploaded = 0;\n"
           "    req.once('socket', socket => {\n" + inner.replace("\n", "\n  ")[:-2]
           + "    });\n  });\n  return emitter;\n}\n")
    repo.commit({"source/request.js": old})
    new = ("module.exports = {\n  upload(req, emitter, size) {\n    let uploaded = 0;\n"
           "    req.once('socket', socket => {\n" + inner.replace("\n", "\n  ")[:-2]
           + "    });\n  }\n};\n")
    events = _events(_changes(repo, repo.commit({
        "source/request.js": "function get(options) {\n  const emitter = makeEmitter(options);\n"
                             "  emitter.on('request', req => upload(req, emitter));\n"
                             "  return emitter;\n}\n",
        "source/progress.js": new})))
    assert events["ts:function:source/progress.upload.onSocketConnect"] == (
        "moved", "function", "ts:function:source/request.get.onSocketConnect")
    assert events["ts:method:source/progress.upload"][0] == "added"
