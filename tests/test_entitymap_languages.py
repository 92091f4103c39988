"""Executed lines -> entities for every language row (``testmap/entitymap.py``): what a
runner of another language maps its coverage through, named as the walker names them."""

from __future__ import annotations

from pathlib import Path

import pygit2

from tests.gitfixture import FixtureRepo
from warpline.lang.snapshot import tree_locators
from warpline.testmap.entitymap import EntityMapper

GO = """package calc

func Add(a, b int) int {
\treturn a + b
}

type Box struct{ n int }

func (b *Box) Grow() {
\tb.n++
}
"""


def test_a_go_files_lines_map_to_its_definitions_and_module(tmp_path: Path) -> None:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc/calc.go": GO}, "go")
    git = pygit2.Repository(str(tmp_path / "repo"))
    commit = git.head.peel(pygit2.Commit)
    mapper = EntityMapper(tmp_path / "repo", git, commit)
    path = mapper.relative(str(tmp_path / "repo" / "calc" / "calc.go"))
    assert path == "calc/calc.go"
    file_map = mapper.file_map(path)
    assert file_map is not None
    truth = tree_locators(git, commit.tree)  # the walker's own names, by its own reading
    add, grow = file_map.locators({4}), file_map.locators({10})
    assert add <= set(truth) and grow <= set(truth)
    module = {loc for loc in truth if ":module:" in loc}
    assert len(add - module) == 1 and next(iter(add - module)).endswith(".Add")
    assert len(module & add) == 1 and module & add == module & grow
    assert any(loc.endswith(".Grow") for loc in grow)
    assert not (add - module) & grow  # Add's line is not Grow's
    # A file no language row reads is not the project's code to map.
    assert mapper.relative(str(tmp_path / "repo" / "go.mod")) is None
