"""Go entities (warpline/lang/golang.py): packages from go.mod, receivers, and the walker's
rules on real git repositories."""

from __future__ import annotations

from pathlib import Path

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
