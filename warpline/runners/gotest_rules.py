"""Go's tests, found in the source as ``go test`` finds them, and each package's imports.

In a ``_test.go`` file (of the package or of its external ``_test`` package), a top-level
function is

* a test: ``TestXxx(t *testing.T)``; a fuzz target: ``FuzzXxx(f *testing.F)`` (its seed
  corpus runs under ``go test``); an example: ``ExampleXxx()`` whose body ends with an
  ``// Output:`` or ``// Unordered output:`` comment (one without is compiled, not run);
  a benchmark: ``BenchmarkXxx(b *testing.B)`` (run only with ``-bench``: discovered, never
  selected);
* where ``Xxx`` does not start with a lower-case letter (``go test``'s own rule).

Subtests: ``t.Run("literal", func(t *testing.T) {...})`` with a literal name, nested the
same way, named as ``go test`` names them (spaces become ``_``, a repeated name gets
``#01``, ``#02``...). A test id is ``<path of its file>::<Name>`` (a subtest
``…::<Name>/<sub>``), repository-relative.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = ["GoTest", "file_tests", "go_test_name", "runs_by_default", "subtest_name",
           "tests_in"]

_PARAM_TYPE = {"Test": "T", "Fuzz": "F", "Benchmark": "B"}
_OUTPUT = ("// Output:", "// Unordered output:", "// output:", "// unordered output:")
MAX_SUBTESTS = 200


@dataclass(slots=True)
class GoTest:
    """One test function: its name, kind (``test``/``fuzz``/``example``/``benchmark``),
    the file and the static subtest names (``A/b``, nested ``A/b/c``)."""

    name: str
    kind: str
    path: str
    subtests: list[str] = field(default_factory=list)

    @property
    def test_id(self) -> str:
        return f"{self.path}::{self.name}"


def runs_by_default(kind: str) -> bool:
    return kind != "benchmark"


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def go_test_name(name: str, prefix: str) -> bool:
    """``go test``'s rule: ``prefix`` alone, or followed by anything but a lower-case
    letter."""
    if not name.startswith(prefix):
        return False
    rest = name[len(prefix):]
    return not rest or not rest[0].islower()


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_go

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_go.language()))


def _imports(root: Any) -> dict[str, str]:
    """Local name -> import path of the file's explicit or default-named imports."""
    out: dict[str, str] = {}
    for decl in root.named_children:
        if decl.type != "import_declaration":
            continue
        specs = [s for c in decl.named_children
                 for s in ([c] if c.type == "import_spec" else c.named_children)]
        for spec in specs:
            path_node = spec.child_by_field_name("path")
            if path_node is None:
                continue
            path = _text(path_node)[1:-1]
            name_node = spec.child_by_field_name("name")
            out[_text(name_node) if name_node is not None else path.rsplit("/", 1)[-1]] = path
    return out


def tests_in(path: str, source: bytes, root: Any = None) -> list[GoTest]:
    """The tests ``go test`` finds in one file (``root``: its parsed tree, if at hand)."""
    if not path.endswith("_test.go"):
        return []
    if root is None:
        root = _parser().parse(source).root_node
    return file_tests(path, root, _imports(root))


def _testing_param(node: Any, imports: dict[str, str], letter: str) -> str | None:
    """The parameter's name when the function takes exactly ``*testing.<letter>``."""
    params = node.child_by_field_name("parameters")
    decls = [p for p in params.named_children] if params is not None else []
    if len(decls) != 1 or node.child_by_field_name("result") is not None:
        return None
    names = decls[0].children_by_field_name("name")
    typ = decls[0].child_by_field_name("type")
    if typ is None or len(names) > 1 or typ.type != "pointer_type":
        return None
    alias = next((a for a, p in imports.items() if p == "testing"), None)
    if alias is None or _text(typ).replace(" ", "") != f"*{alias}.{letter}":
        return None
    return _text(names[0]) if names else "_"


def _has_output(node: Any) -> bool:
    body = node.child_by_field_name("body")
    if body is None:
        return False
    comments = [c for c in _descendant_comments(body)]
    return any(_text(c).lstrip().startswith(_OUTPUT) for c in comments)


def _descendant_comments(body: Any) -> list[Any]:
    # The output comment is the body's last statement-level comment: only the body's
    # direct children and its statement list's are read (never every node).
    out = [c for c in body.named_children if c.type == "comment"]
    for child in body.named_children:
        if child.type == "statement_list":
            out.extend(c for c in child.named_children if c.type == "comment")
    return out


def file_tests(path: str, root: Any, imports: dict[str, str]) -> list[GoTest]:
    """The tests ``go test`` finds in one ``_test.go`` file's tree (none in other files)."""
    if not path.endswith("_test.go"):
        return []
    found = []
    for node in root.named_children:
        if node.type != "function_declaration" \
                or node.child_by_field_name("type_parameters") is not None:
            continue
        name_node = node.child_by_field_name("name")
        if name_node is None:
            continue
        name = _text(name_node)
        if go_test_name(name, "Example"):
            params = node.child_by_field_name("parameters")
            if (params is None or not params.named_children) and _has_output(node):
                found.append(GoTest(name, "example", path))
            continue
        for prefix, letter in _PARAM_TYPE.items():
            if not go_test_name(name, prefix):
                continue
            param = _testing_param(node, imports, letter)
            if param is not None:
                test = GoTest(name, prefix.lower(), path)
                if prefix == "Test":
                    test.subtests = _subtests(node.child_by_field_name("body"), param, name)
                found.append(test)
            break
    return found


def subtest_name(literal: str) -> str:
    """A subtest's name as ``go test`` reports it (``testing.rewrite``)."""
    out = []
    for char in literal:
        if char.isspace():
            out.append("_")
        elif not char.isprintable():
            out.append(repr(char)[1:-1])
        else:
            out.append(char)
    return "".join(out)


def _subtests(body: Any, param: str, prefix: str, depth: int = 0) -> list[str]:
    """Static ``param.Run("name", func(x *testing.T) {...})`` calls in ``body``, nested."""
    if body is None or depth > 4 or param == "_":
        return []
    out: list[str] = []
    seen: dict[str, int] = {}
    stack = [body]
    while stack and len(out) < MAX_SUBTESTS:
        node = stack.pop()
        if node.type == "call_expression":
            name = _run_name(node, param)
            if name is not None:
                literal, inner, inner_param = name
                base = subtest_name(literal)
                count = seen.get(base, 0)
                seen[base] = count + 1
                full = f"{prefix}/{base}" if count == 0 else f"{prefix}/{base}#{count:02d}"
                out.append(full)
                if inner is not None and inner_param:
                    out.extend(_subtests(inner, inner_param, full, depth + 1))
                continue
        if node.type == "func_literal" and node != body:
            continue  # a closure's own `t.Run` calls run where it is called: not static
        stack.extend(reversed(node.named_children))
    return out


def _run_name(call: Any, param: str) -> tuple[str, Any, str] | None:
    func = call.child_by_field_name("function")
    if func is None or func.type != "selector_expression":
        return None
    operand, field_node = func.child_by_field_name("operand"), func.child_by_field_name("field")
    if operand is None or field_node is None or _text(operand) != param \
            or _text(field_node) != "Run":
        return None
    args = call.child_by_field_name("arguments")
    values = args.named_children if args is not None else []
    if len(values) != 2 or values[0].type not in ("interpreted_string_literal",
                                                  "raw_string_literal"):
        return None
    raw = _text(values[0])
    if values[0].type == "interpreted_string_literal" and "\\" in raw:
        return None  # escapes: not worth guessing the exact name
    literal = raw[1:-1]
    inner = values[1]
    if inner.type != "func_literal":
        return literal, None, ""
    params = inner.child_by_field_name("parameters")
    first = params.named_children[0] if params is not None and params.named_children else None
    names = first.children_by_field_name("name") if first is not None else []
    return literal, inner.child_by_field_name("body"), _text(names[0]) if names else ""
