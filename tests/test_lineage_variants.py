"""Lineage's rules around renames that keep the old name in use (issue 35, item 8): an
extract-method named ``<old>_<suffix>``, a helper inlined back into several callers, and a
rename that renames a local variable on every line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import langwalk
from tests.gitfixture import FixtureRepo


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def _defs(repo: FixtureRepo, sha: str) -> dict[str, tuple[str, str | None]]:
    return {loc: (kind, prev) for loc, (kind, _, prev)
            in langwalk.events(langwalk.changes(repo, sha)).items()}


WINDOW = '''\
class Window:
    def _initialize(self, title, width, height):
        self.title = title
        self.frame = Frame(width, height)
        self.frame.pack()
        self.menu = Menu(self.frame)
        self.menu.add("File")
        self.menu.add("Edit")
        self.status = Status(self.frame)
        self.status.show("ready")
'''

EXTRACTED = '''\
class Window:
    def _initialize(self, title, width, height):
        self.title = title
        self.size = (width, height)
        self._initialize_layout()

    def _initialize_layout(self):
        self.frame = Frame(*self.size)
        self.frame.pack()
        self.menu = Menu(self.frame)
        self.menu.add("File")
        self.menu.add("Edit")
        self.status = Status(self.frame)
        self.status.show("ready")
'''


def test_an_extract_method_named_old_underscore_suffix_with_fewer_parameters_is_new(
        repo: FixtureRepo) -> None:
    # Named ``_setup_layout`` it was already right; the bare prefix test took
    # ``_initialize_layout`` for a variant of ``_initialize`` and gave it the history.
    repo.commit({"ui.py": WINDOW}, "one")
    sha = repo.commit({"ui.py": EXTRACTED}, "extract")
    assert _defs(repo, sha) == {
        "python:function:ui.Window._initialize": ("modified", None),
        "python:function:ui.Window._initialize_layout": ("added", None)}


BODY = """\
    data = encode({})
    header = make_header(len(data))
    conn.write(header)
    conn.write(data)
    conn.flush()
    return len(data)
"""
INLINED = ("def send_one(conn, item):\n" + BODY.format("item") + "\n\n"
           "def send_many(conn, items):\n" + BODY.format("list(items)"))
HELPERS = ("def _send(conn, payload):\n" + BODY.format("payload") + "\n\n"
           "def send_one(conn, item):\n    return _send(conn, item)\n\n\n"
           "def send_many(conn, items):\n    return _send(conn, list(items))\n")


def test_a_helper_inlined_back_into_several_callers_hands_its_lineage_to_none(
        repo: FixtureRepo) -> None:
    repo.commit({"net.py": HELPERS}, "one")
    sha = repo.commit({"net.py": INLINED}, "revert: inline _send")
    assert _defs(repo, sha) == {
        "python:function:net._send": ("removed", None),
        "python:function:net.send_one": ("modified", None),
        "python:function:net.send_many": ("modified", None)}


LOADER = '''\
def load_rows(path, limit):
    rows = []
    with open(path) as handle:
        for line in handle:
            rows.append(line.rstrip("\\n").split(","))
            if len(rows) >= limit:
                break
    return rows
'''


def test_a_rename_that_also_renames_a_local_on_every_line_is_moved(repo: FixtureRepo) -> None:
    repo.commit({"io_.py": LOADER, "other.py": "X = 1\n"}, "one")
    renamed = LOADER.replace("load_rows", "read_records").replace("rows", "records")
    sha = repo.commit({"io_.py": renamed}, "rename")
    assert _defs(repo, sha) == {
        "python:function:io_.read_records": ("moved", "python:function:io_.load_rows")}


def test_siblings_differing_in_their_own_locals_are_not_paired(repo: FixtureRepo) -> None:
    # The identifier-normalised comparison renames locals only: two functions of one
    # shape that call different things stay apart.
    first = ('def total_price(items):\n    total = 0\n    for item in items:\n'
             '        total += item.price\n    return round(total, 2)\n')
    second = ('def total_weight(parcels):\n    weight = 0\n    for parcel in parcels:\n'
              '        weight += parcel.mass\n    return ceil(weight)\n')
    repo.commit({"calc.py": first}, "one")
    sha = repo.commit({"calc.py": second}, "replace")
    assert _defs(repo, sha) == {"python:function:calc.total_price": ("removed", None),
                                "python:function:calc.total_weight": ("added", None)}


VENV = '''\
def _running_under_venv():
    """Checks if sys.base_prefix and sys.prefix match."""
    return sys.prefix != getattr(sys, "base_prefix", sys.prefix)


def running_under_virtualenv():
    """True if we're running inside a virtual environment."""
    return _running_under_venv()


def virtualenv_no_global():
    if _running_under_venv():
        return _no_global_under_venv()
    return False
'''

VENV_NOW = '''\
def running_under_virtualenv():
    """Checks if sys.base_prefix and sys.prefix match."""
    return sys.prefix != getattr(sys, "base_prefix", sys.prefix)


def virtualenv_no_global():
    if running_under_virtualenv():
        return _no_global_under_venv()
    return False
'''


def test_a_caller_now_calling_the_helpers_new_name_has_not_inlined_it(
        repo: FixtureRepo) -> None:
    # pip 5c17db0: the wrapper took the body of the helper it called; the helper's other
    # caller now calls the wrapper (no inline into several callers).
    repo.commit({"venv.py": VENV}, "one")
    sha = repo.commit({"venv.py": VENV_NOW}, "remove redundant function call")
    found = _defs(repo, sha)
    assert found["python:function:venv.running_under_virtualenv"] == (
        "moved", "python:function:venv._running_under_venv")


MAN = '''\
package doc

func GenManTree(cmd *Command, header *Header, dir string) error {
	if header == nil {
		header = &Header{}
	}
	for _, c := range cmd.Commands() {
		if err := GenManTree(c, header, dir); err != nil {
			return err
		}
	}
	return write(cmd, header, dir)
}
'''

MAN_NOW = '''\
package doc

func GenManTree(cmd *Command, header *Header, dir string) error {
	return GenManTreeFromOpts(cmd, Options{
		Header: header,
		Path:   dir,
	})
}

func GenManTreeFromOpts(cmd *Command, opts Options) error {
	header := opts.Header
	if header == nil {
		header = &Header{}
	}
	for _, c := range cmd.Commands() {
		if err := GenManTreeFromOpts(c, opts); err != nil {
			return err
		}
	}
	return write(cmd, header, opts.Path)
}
'''


def test_a_variant_taking_its_parameters_as_one_options_value_keeps_the_body_lineage(
        repo: FixtureRepo) -> None:
    # cobra e291587: fewer parameters, but the old name only forwards to the new one.
    repo.commit({"go.mod": "module demo\n\ngo 1.21\n", "doc/man.go": MAN}, "one")
    sha = repo.commit({"doc/man.go": MAN_NOW}, "options")
    found = _defs(repo, sha)
    assert found["go:function:demo/doc.GenManTreeFromOpts"] == (
        "moved", "go:function:demo/doc.GenManTree")
