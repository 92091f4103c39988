"""Go entities (warpline/lang/golang.py): packages from go.mod, receivers, and the walker's
rules on real git repositories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo
from warpline.lang.golang import module_name, read

GOMOD = "module github.com/acme/demo\n\ngo 1.21\n"

SHAPES = """\
package shapes

import "fmt"

// Shape is a thing.
// It has a radius.
type Shape struct {
	r int
}

type (
	// Unit is one.
	Unit int
	Name = string
)

// Area is the area.
func (s *Shape) Area() int {
	return s.r * s.r
}

func (l List[T]) Len() int { return 0 }

func New(r int) *Shape {
	fmt.Println(r)
	return &Shape{r}
}

type Sizer interface {
	Size() int
}
"""


class _Files:
    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read(self, path: str) -> bytes | None:
        text = self.files.get(path)
        return None if text is None else text.encode()


def test_packages_come_from_go_mod() -> None:
    files = _Files({"go.mod": GOMOD})
    assert module_name("shapes/shape.go", files) == "github.com/acme/demo/shapes"
    assert module_name("main.go", files) == "github.com/acme/demo"
    nested = _Files({"go.mod": GOMOD, "tools/go.mod": "module example.org/tools\n"})
    assert module_name("tools/gen/gen.go", nested) == "example.org/tools/gen"
    assert module_name("a/b.go", _Files({})) == "a"


def test_definitions_kinds_and_doc_comments() -> None:
    parsed = read(SHAPES.encode())
    assert parsed is not None
    spans = {e.key: e.spans for e in parsed.entities}
    assert spans[("struct", "Shape")] == ((5, 9),)  # the doc comment belongs to it
    assert spans[("type", "Unit")] == ((12, 13),)
    assert ("type", "Name") in spans
    assert spans[("function", "Shape.Area")] == ((17, 20),)
    assert ("function", "List.Len") in spans  # type arguments dropped
    assert ("function", "New") in spans
    assert ("interface", "Sizer") in spans


_changes, _events = langwalk.changes, langwalk.events


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def test_a_receiver_switched_between_value_and_pointer_is_the_same_method(
        repo: FixtureRepo) -> None:
    added = _events(_changes(repo, repo.commit({"go.mod": GOMOD, "shapes/shape.go": SHAPES})))
    assert added["go:function:github.com/acme/demo/shapes.Shape.Area"] == (
        "added", "function", None)
    assert added["go:struct:github.com/acme/demo/shapes.Shape"][:2] == ("added", "class")
    switched = _events(_changes(repo, repo.commit(
        {"shapes/shape.go": SHAPES.replace("func (s *Shape) Area", "func (s Shape) Area")})))
    assert switched == {"go:function:github.com/acme/demo/shapes.Shape.Area": (
        "modified", "function", None)}


def test_a_function_moved_to_another_package_keeps_its_lineage(repo: FixtureRepo) -> None:
    repo.commit({"go.mod": GOMOD, "shapes/shape.go": SHAPES,
                 "util/util.go": "package util\n\nfunc Other() {}\n"})
    new_fn = SHAPES[SHAPES.index("func New"):SHAPES.index("type Sizer")]
    moved = _events(_changes(repo, repo.commit({
        "shapes/shape.go": SHAPES.replace(new_fn, ""),
        "util/util.go": "package util\n\nfunc Other() {}\n\n" + new_fn})))
    assert moved["go:function:github.com/acme/demo/util.New"] == (
        "moved", "function", "go:function:github.com/acme/demo/shapes.New")


def test_a_function_renamed_into_another_file_of_its_package_keeps_its_lineage(
        repo: FixtureRepo) -> None:
    repo.commit({"go.mod": GOMOD, "shapes/shape.go": SHAPES})
    new_fn = SHAPES[SHAPES.index("func New"):SHAPES.index("type Sizer")]
    events = _events(_changes(repo, repo.commit({
        "shapes/shape.go": SHAPES.replace(new_fn, ""),
        "shapes/make.go": "package shapes\n\nimport \"fmt\"\n\n"
                          + new_fn.replace("func New(", "func Make(")})))
    assert events["go:function:github.com/acme/demo/shapes.Make"] == (
        "moved", "function", "go:function:github.com/acme/demo/shapes.New")
    assert "go:function:github.com/acme/demo/shapes.New" not in events


def test_a_file_renamed_within_its_package_keeps_its_ids(repo: FixtureRepo) -> None:
    repo.commit({"go.mod": GOMOD, "shapes/shape.go": SHAPES})
    found = _changes(repo, repo.commit({"shapes/shape.go": None, "shapes/circle.go": SHAPES}))
    area = "go:function:github.com/acme/demo/shapes.Shape.Area"
    assert _events(found)[area] == ("moved", "function", area)  # the path moved, not the id
    assert [(c.previous_path, c.also_modified) for c in found.changes if c.locator == area] \
        == [("shapes/shape.go", False)]


def test_a_go_mod_added_later_carries_the_untouched_packages(repo: FixtureRepo) -> None:
    repo.commit({"shapes/shape.go": SHAPES, "cmd/main.go": "package main\n\nfunc main() {}\n"})
    events = _events(_changes(repo, repo.commit({"go.mod": GOMOD})))
    assert events["go:function:github.com/acme/demo/shapes.Shape.Area"] == (
        "moved", "function", "go:function:shapes.Shape.Area")
    assert events["go:function:github.com/acme/demo/cmd.main"] == (
        "moved", "function", "go:function:cmd.main")
    assert _events(_changes(repo, repo.commit({"go.mod": GOMOD + "\nrequire x.y/z v1.0.0\n"}))) \
        == {}  # an edit that renames nothing carries nothing


def test_a_timeline_reaches_back_past_the_go_mod(repo: FixtureRepo) -> None:
    from warpline.registry import call_tool

    repo.commit({"shapes/shape.go": SHAPES}, "before go.mod")
    repo.commit({"go.mod": GOMOD}, "go.mod")
    repo.commit({"shapes/shape.go": SHAPES.replace("s.r * s.r", "s.r * s.r * 2")}, "edit")
    env = call_tool("timeline", {"repo": str(repo.path), "sort_order": "asc",
                                 "entity": "go:function:github.com/acme/demo/shapes.Shape.Area"})
    assert [i["change_kind"] for i in env["data"]["items"]] == ["added", "moved", "modified"]


def test_a_syntax_error_keeps_intact_definitions(repo: FixtureRepo) -> None:
    repo.commit({"go.mod": GOMOD, "shapes/shape.go": SHAPES})
    broken = _changes(repo, repo.commit({"shapes/shape.go": SHAPES.replace(
        "return s.r * s.r", "return s.r * s.r * 2").replace("type Sizer interface {",
                                                             "type Sizer interface {{(")}))
    events = _events(broken)
    assert broken.unparsed_files == ()
    assert events["go:function:github.com/acme/demo/shapes.Shape.Area"][0] == "modified"
    assert "go:function:github.com/acme/demo/shapes.New" not in events


def test_a_file_added_to_an_existing_package_modifies_the_package(repo: FixtureRepo) -> None:
    first = _events(_changes(repo, repo.commit({"go.mod": GOMOD, "shapes/shape.go": SHAPES})))
    assert first["go:module:github.com/acme/demo/shapes"][0] == "added"
    more = _events(_changes(repo, repo.commit(
        {"shapes/more.go": "package shapes\n\nfunc More() {}\n"})))
    assert more["go:module:github.com/acme/demo/shapes"][0] == "modified"
    assert more["go:function:github.com/acme/demo/shapes.More"][0] == "added"
    fewer = _events(_changes(repo, repo.commit({"shapes/more.go": None})))
    assert fewer["go:module:github.com/acme/demo/shapes"][0] == "modified"
    gone = _events(_changes(repo, repo.commit({"shapes/shape.go": None})))
    assert gone["go:module:github.com/acme/demo/shapes"][0] == "removed"


COMMAND = """\
package demo

type Command struct {
	name     string
	children []*Command
}

func (c *Command) Children() []*Command { return c.children }
"""

# cobra before b3f29e9: the function is a one-line wrapper, the method holds the body.
GEN = """\
package demo

import (
	"fmt"
	"os"
)

// GenTree will call cmd.GenTree(dir)
func GenTree(cmd *Command, dir string) {
	cmd.GenTree(dir)
}

// GenTree writes a page for the command and each of its children into dir.
func (cmd *Command) GenTree(dir string) {
	for _, c := range cmd.Children() {
		if c.name == "help" {
			continue
		}
		GenTree(c, dir)
	}
	name := dir + "/" + cmd.name + ".1"
	out, err := os.Create(name)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	defer out.Close()
	fmt.Fprintf(out, "# %s\\n", cmd.name)
}

// Page will call cmd.Page()
func Page(cmd *Command) string {
	return cmd.Page()
}

// Page is the command's page.
func (cmd *Command) Page() string {
	return "# " + cmd.name
}
"""

_DEMO = "go:function:github.com/acme/demo"
_WRAPPER = "// GenTree will call cmd.GenTree(dir)\nfunc GenTree(cmd *Command, dir string) {\n" \
    "\tcmd.GenTree(dir)\n}\n\n"


def _absorbed(text: str, package: str = "demo", qualify: str = "") -> str:
    """GEN after the commit: the wrapper gone, the function holding the method's body
    (``qualify``: the package the Command type now comes from)."""
    out = text.replace(_WRAPPER, "").replace(
        "func (cmd *Command) GenTree(dir string) {",
        f"func GenTree(cmd *{qualify}Command, dir string) {{")
    out = out.replace("package demo\n", f"package {package}\n")
    if qualify:
        out = out.replace('\t"os"\n)', '\t"os"\n\n\t"github.com/acme/demo"\n)').replace(
            "*Command", "*demo.Command")
    return out


def _timeline(repo: FixtureRepo, locator: str) -> dict[str, Any]:
    from warpline.registry import call_tool

    env: dict[str, Any] = call_tool("timeline", {"repo": str(repo.path), "sort_order": "asc",
                                                 "entity": locator})
    return env


def _history(repo: FixtureRepo, locator: str) -> list[tuple[str, str]]:
    from warpline.registry import call_tool

    items = _timeline(repo, locator)["data"]["items"]
    churn = call_tool("churn", {"repo": str(repo.path), "entity_refs": [locator]})
    assert churn["data"]["items"][0]["churn_count"] == len(items)
    return [(i["change_kind"], i["locator"].rsplit(".", 1)[0].rsplit("/", 1)[-1])
            for i in items]


def test_a_wrapper_that_absorbs_its_method_in_a_move_to_another_package_continues_it(
        repo: FixtureRepo) -> None:
    """cobra b3f29e9: man_docs.go -> doc/man_docs.go (package doc); the method
    ``(cmd *Command) GenManTree`` deleted, the free function ``GenManTree``, its one-line
    wrapper, now holds the body. The body's history goes on in ``doc.GenTree``; the
    wrapper's ends where it was (a ``removed`` of its old name)."""
    repo.commit({"go.mod": GOMOD, "command.go": COMMAND, "gen.go": GEN}, "first")
    edited = GEN.replace('c.name == "help"', 'c.name == "help" || c.name == "completion"')
    repo.commit({"gen.go": edited}, "edit the body")
    moved = _absorbed(edited, "doc", "demo.")
    found = _events(_changes(repo, repo.commit({"gen.go": None, "doc/gen.go": moved}, "doc")))
    doc = "go:function:github.com/acme/demo/doc"
    assert found[f"{doc}.GenTree"] == ("moved", "function", f"{_DEMO}.Command.GenTree")
    assert found[f"{_DEMO}.GenTree"] == ("removed", "function", None)
    assert f"{_DEMO}.Command.GenTree" not in found
    assert _history(repo, f"{doc}.GenTree") == [
        ("added", "demo.Command"), ("modified", "demo.Command"), ("moved", "doc")]
    assert _history(repo, f"{_DEMO}.GenTree") == [("added", "demo"), ("removed", "demo")]


def test_a_wrapper_that_absorbs_its_method_in_place_continues_it(repo: FixtureRepo) -> None:
    """The same commit without the file rename: the function's event is ``moved`` from
    the method; its timeline and churn from then on are the body's."""
    repo.commit({"go.mod": GOMOD, "command.go": COMMAND, "gen.go": GEN}, "first")
    edited = GEN.replace('c.name == "help"', 'c.name == "help" || c.name == "completion"')
    repo.commit({"gen.go": edited}, "edit the body")
    found = _events(_changes(repo, repo.commit({"gen.go": _absorbed(edited)}, "absorb")))
    assert found[f"{_DEMO}.GenTree"] == ("moved", "function", f"{_DEMO}.Command.GenTree")
    assert f"{_DEMO}.Command.GenTree" not in found
    assert _history(repo, f"{_DEMO}.GenTree") == [
        ("added", "demo.Command"), ("modified", "demo.Command"), ("moved", "demo")]
    # The wrapper's own change (its addition) is no part of it, and the timeline says so.
    warnings = _timeline(repo, f"{_DEMO}.GenTree")["warnings"]
    assert any("ended" in w and f"{_DEMO}.GenTree" in w and " 1 " in w for w in warnings)


def test_only_a_wrapper_rewritten_into_the_removed_body_takes_its_lineage(
        repo: FixtureRepo) -> None:
    """Two wrappers lose their methods in one commit: ``GenTree`` takes the body, ``Page``
    is rewritten into something unlike its method's body and keeps its own lineage (the
    method is removed)."""
    repo.commit({"go.mod": GOMOD, "command.go": COMMAND, "gen.go": GEN}, "first")
    page = GEN[GEN.index("// Page will call"):]
    rewritten = _absorbed(GEN).replace(
        page[page.index("// Page will call"):],
        "// Page is the title line of the command's page.\n"
        "func Page(cmd *Command) string {\n\ttitle := strings.ToUpper(cmd.name)\n"
        "\treturn fmt.Sprintf(\"%s(1)\", title)\n}\n").replace(
        '\t"os"\n', '\t"os"\n\t"strings"\n')
    found = _events(_changes(repo, repo.commit({"gen.go": rewritten}, "rewrite")))
    assert found[f"{_DEMO}.GenTree"] == ("moved", "function", f"{_DEMO}.Command.GenTree")
    assert found[f"{_DEMO}.Page"] == ("modified", "function", None)
    assert found[f"{_DEMO}.Command.Page"] == ("removed", "function", None)
    assert _history(repo, f"{_DEMO}.Page") == [("added", "demo"), ("modified", "demo")]


def test_a_function_that_became_its_first_parameters_method_hands_it_its_lineage(
        repo: FixtureRepo) -> None:
    """cobra 9e77886: ``GenMarkdownCustom(cmd *Command, ...)`` became the method
    ``(cmd *Command) GenMarkdownCustom(...)``, the function kept as a wrapper calling it:
    the body goes on in the method, the wrapper begins a lineage of its own."""
    absorbed = _absorbed(GEN)
    repo.commit({"go.mod": GOMOD, "command.go": COMMAND, "gen.go": absorbed}, "first")
    found = _events(_changes(repo, repo.commit({"gen.go": GEN}, "to a method")))
    assert found[f"{_DEMO}.Command.GenTree"] == ("moved", "function", f"{_DEMO}.GenTree")
    assert found[f"{_DEMO}.GenTree"] == ("added", "function", None)


def test_a_function_moved_to_another_file_of_its_package_has_a_nature(
        repo: FixtureRepo) -> None:
    """cobra 62fb674: ``Find`` moved from cobra.go into a new command.go of the same
    package keeps its locator, so the event is ``modified`` with no previous path; its
    old version is read from the file it left, and what the change means is known."""
    repo.commit({"go.mod": GOMOD, "shapes/shape.go": SHAPES})
    new_fn = SHAPES[SHAPES.index("func New"):SHAPES.index("type Sizer")]
    moved = _changes(repo, repo.commit({
        "shapes/shape.go": SHAPES.replace(new_fn, ""),
        "shapes/make.go": "package shapes\n\nimport \"fmt\"\n\n"
                          + new_fn.replace("fmt.Println(r)", "fmt.Println(r) // said")}))
    [change] = [c for c in moved.changes
                if c.locator == "go:function:github.com/acme/demo/shapes.New"]
    assert (change.change_kind, change.facts) == ("modified", (True, True, False))
