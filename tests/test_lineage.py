"""Lineage: removed + added definitions of one commit paired into ``moved`` events
(``warpline.git.lineage``), on real fixture repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitfixture import FixtureRepo
from warpline.git.attribution import commit_changes
from warpline.git.events import EntityChange
from warpline.git.repo import resolve_commit

PARSER = '''\
import re


def parse_header(text, strict=False):
    """Split a header line into a name and a value."""
    name, sep, value = text.partition(":")
    if not sep and strict:
        raise ValueError(text)
    name = name.strip().lower()
    value = re.sub(r"\\s+", " ", value).strip()
    return name, value


def unrelated():
    return 42
'''

REPORTER = '''\
import time


class ProgressReporter:
    """Reports the speed of a transfer."""

    interval = 0.5

    def __init__(self, total):
        self.total = total
        self.done = 0
        self.started = time.monotonic()

    def advance(self, count):
        self.done += count
        if self.done > self.total:
            self.done = self.total

    def report_speed(self):
        elapsed = time.monotonic() - self.started
        if elapsed <= 0:
            return 0.0
        return self.done / elapsed
'''


def _changes(repo: FixtureRepo, sha: str) -> dict[str, EntityChange]:
    commit = resolve_commit(repo.repo, sha)
    return {c.locator: c for c in commit_changes(repo.repo, commit).changes}


def _defs(changes: dict[str, EntityChange]) -> set[tuple[str, str, str | None]]:
    return {(c.locator, c.change_kind, c.previous_locator) for c in changes.values()
            if c.kind in ("class", "function")}


@pytest.fixture
def repo(tmp_path: Path) -> FixtureRepo:
    return FixtureRepo(tmp_path / "repo")


def test_an_in_file_rename_is_one_moved_event(repo: FixtureRepo) -> None:
    repo.commit({"hdr.py": PARSER})
    sha = repo.commit({"hdr.py": PARSER.replace("parse_header", "split_header")})
    changes = _changes(repo, sha)
    assert _defs(changes) == {("python:function:hdr.split_header", "moved",
                               "python:function:hdr.parse_header")}
    moved = changes["python:function:hdr.split_header"]
    assert (moved.path, moved.previous_path, moved.also_modified) == ("hdr.py", "hdr.py", False)


def test_a_rename_with_a_body_edit_is_moved_and_also_modified(repo: FixtureRepo) -> None:
    repo.commit({"hdr.py": PARSER})
    edited = PARSER.replace("parse_header", "split_header").replace(
        "name.strip().lower()", "name.strip().casefold()")
    sha = repo.commit({"hdr.py": edited})
    moved = _changes(repo, sha)["python:function:hdr.split_header"]
    assert (moved.change_kind, moved.previous_locator, moved.also_modified) == (
        "moved", "python:function:hdr.parse_header", True)


def test_a_function_cut_and_pasted_into_another_module_moves(repo: FixtureRepo) -> None:
    repo.commit({"pkg/hdr.py": PARSER, "pkg/util.py": "import os\n"})
    body = PARSER[PARSER.index("def parse_header"):PARSER.index("def unrelated")]
    sha = repo.commit({
        "pkg/hdr.py": PARSER.replace(body, ""),
        "pkg/util.py": "import os\nimport re\n\n\n" + body.replace("strict=False", "strict=True"),
    })
    changes = _changes(repo, sha)
    assert _defs(changes) == {("python:function:pkg.util.parse_header", "moved",
                               "python:function:pkg.hdr.parse_header")}
    moved = changes["python:function:pkg.util.parse_header"]
    assert (moved.path, moved.previous_path, moved.also_modified) == (
        "pkg/util.py", "pkg/hdr.py", True)


def test_a_class_rename_carries_its_methods(repo: FixtureRepo) -> None:
    repo.commit({"progress.py": REPORTER})
    sha = repo.commit({"progress.py": REPORTER.replace("ProgressReporter",
                                                       "ProgressReporterThread")})
    changes = _changes(repo, sha)
    old, new = "progress.ProgressReporter", "progress.ProgressReporterThread"
    assert _defs(changes) == {
        (f"python:class:{new}", "moved", f"python:class:{old}"),
        *((f"python:function:{new}.{m}", "moved", f"python:function:{old}.{m}")
          for m in ("__init__", "advance", "report_speed")),
    }
    assert not any(c.also_modified for c in changes.values() if c.kind != "file")


def test_a_class_rename_with_a_method_renamed_inside_pairs_both(repo: FixtureRepo) -> None:
    repo.commit({"progress.py": REPORTER})
    sha = repo.commit({"progress.py": REPORTER.replace("ProgressReporter", "Reporter")
                       .replace("def advance", "def step")})
    changes = _changes(repo, sha)
    step = changes["python:function:progress.Reporter.step"]
    assert (step.change_kind, step.previous_locator) == (
        "moved", "python:function:progress.ProgressReporter.advance")


def test_a_method_moved_between_classes(repo: FixtureRepo) -> None:
    two = REPORTER + "\n\nclass Transfer:\n    def start(self):\n        return None\n"
    repo.commit({"progress.py": two})
    method = two[two.index("    def report_speed"):two.index("\n\nclass Transfer")] + "\n"
    moved_src = two.replace(method, "").replace(
        "class Transfer:\n", "class Transfer:\n" + method + "\n")
    sha = repo.commit({"progress.py": moved_src})
    changes = _changes(repo, sha)
    assert _defs(changes) == {("python:function:progress.Transfer.report_speed", "moved",
                               "python:function:progress.ProgressReporter.report_speed")}


def test_a_function_split_in_two_keeps_its_lineage_in_the_more_similar_half(
    repo: FixtureRepo,
) -> None:
    repo.commit({"hdr.py": PARSER})
    split = PARSER.replace('''def parse_header(text, strict=False):
    """Split a header line into a name and a value."""
    name, sep, value = text.partition(":")
    if not sep and strict:
        raise ValueError(text)
    name = name.strip().lower()
    value = re.sub(r"\\s+", " ", value).strip()
    return name, value
''', '''def split_header(text, strict=False):
    """Split a header line into a name and a value."""
    name, sep, value = text.partition(":")
    if not sep and strict:
        raise ValueError(text)
    name = name.strip().lower()
    return name, clean_value(value)


def clean_value(value):
    return re.sub(r"\\s+", " ", value).strip()
''')
    sha = repo.commit({"hdr.py": split})
    assert _defs(_changes(repo, sha)) == {
        ("python:function:hdr.split_header", "moved", "python:function:hdr.parse_header"),
        ("python:function:hdr.clean_value", "added", None),
    }


def test_a_removed_function_and_an_unrelated_added_one_are_not_paired(
    repo: FixtureRepo,
) -> None:
    repo.commit({"hdr.py": PARSER})
    other = PARSER.replace(PARSER[PARSER.index("def parse_header"):PARSER.index(
        "def unrelated")], '''def load_config(path):
    with open(path) as handle:
        data = handle.read()
    settings = {}
    for line in data.splitlines():
        key, _, val = line.partition("=")
        settings[key] = val
    return settings


''')
    sha = repo.commit({"hdr.py": other})
    assert _defs(_changes(repo, sha)) == {
        ("python:function:hdr.parse_header", "removed", None),
        ("python:function:hdr.load_config", "added", None),
    }


def test_tiny_bodies_in_other_files_are_not_paired_by_their_text_alone(
    repo: FixtureRepo,
) -> None:
    repo.commit({"a.py": "def setup():\n    pass\n", "b.py": "X = 1\n"})
    sha = repo.commit({"a.py": "", "b.py": "X = 1\n\n\ndef teardown():\n    pass\n"})
    assert _defs(_changes(repo, sha)) == {
        ("python:function:a.setup", "removed", None),
        ("python:function:b.teardown", "added", None),
    }


def test_a_dunder_of_another_class_is_not_taken_for_a_move(repo: FixtureRepo) -> None:
    src = ("class A:\n    def __repr__(self):\n        return 'A(%r, %r)' % (self.x, self.y)\n"
           "\n\nclass B:\n    pass\n")
    repo.commit({"m.py": src})
    sha = repo.commit({"m.py": "class A:\n    pass\n\n\nclass B:\n    def __repr__(self):\n"
                       "        return '<B %s>' % self.name\n"})
    assert _defs(_changes(repo, sha)) == {
        ("python:function:m.A.__repr__", "removed", None),
        ("python:function:m.B.__repr__", "added", None),
        ("python:class:m.A", "modified", None),  # gained its `pass`
        ("python:class:m.B", "modified", None),  # lost it
    }


def test_a_file_move_keeping_the_dotted_name_moves_its_definitions(repo: FixtureRepo) -> None:
    repo.commit({"flask/app.py": PARSER})
    sha = repo.commit({}, renames={"flask/app.py": "src/flask/app.py"})
    changes = _changes(repo, sha)
    moved = changes["python:function:flask.app.parse_header"]
    assert (moved.change_kind, moved.previous_path, moved.path) == (
        "moved", "flask/app.py", "src/flask/app.py")


def test_a_statement_moved_within_a_function_marks_it_modified(repo: FixtureRepo) -> None:
    body = ["    a(x)\n", "    b(x)\n", "    c(x)\n", "    d(x)\n", "    e(x)\n"]
    before = "def f(x):\n" + "".join(body) + "\n\ndef g():\n    return 1\n"
    after = "def f(x):\n" + "".join(body[1:] + body[:1]) + "\n\ndef g():\n    return 1\n"
    repo.commit({"m.py": before})
    sha = repo.commit({"m.py": after})
    changes = _changes(repo, sha)
    assert {(c.locator, c.change_kind) for c in changes.values()} == {
        ("core:file:m.py", "modified"), ("python:function:m.f", "modified")}


LONG = "def f(x):\n" + "".join(f"    x = x + {i}\n" for i in range(12)) + "    return x\n"


def test_a_clean_merge_of_two_edits_to_one_function_introduces_nothing(
    repo: FixtureRepo,
) -> None:
    base = repo.commit({"m.py": LONG})
    ours = repo.commit({"m.py": LONG.replace("x + 1\n", "x + 100\n")})
    theirs = repo.commit({"m.py": LONG.replace("x + 10\n", "x + 1000\n")}, parents=[base],
                         update_head=False)
    both = LONG.replace("x + 1\n", "x + 100\n").replace("x + 10\n", "x + 1000\n")
    merge = repo.merge_commit(ours, theirs, {"m.py": both})
    assert _changes(repo, merge) == {}  # exactly what the automatic re-merge gives


def test_a_merge_where_the_other_branch_had_the_pre_rename_path_introduces_nothing(
    repo: FixtureRepo,
) -> None:
    other = "def g(y):\n    return y * 2\n"
    base = repo.commit({"old.py": LONG, "keep.py": other})
    ours = repo.commit({}, renames={"old.py": "new.py"})
    theirs = repo.commit({"old.py": LONG.replace("x + 5\n", "x + 50\n")}, parents=[base],
                         update_head=False)
    merge = repo.merge_commit(ours, theirs, {"new.py": LONG.replace("x + 5\n", "x + 50\n")})
    assert _changes(repo, merge) == {}


def test_a_conflict_resolution_is_still_the_merge_s_own_change(repo: FixtureRepo) -> None:
    base = repo.commit({"m.py": LONG})
    ours = repo.commit({"m.py": LONG.replace("x + 5\n", "x + 50\n")})
    theirs = repo.commit({"m.py": LONG.replace("x + 5\n", "x + 500\n")}, parents=[base],
                         update_head=False)
    merge = repo.merge_commit(ours, theirs, {"m.py": LONG.replace("x + 5\n", "x + 5000\n")})
    assert {(c.locator, c.change_kind) for c in _changes(repo, merge).values()} == {
        ("core:file:m.py", "modified"), ("python:function:m.f", "modified")}


def test_past_the_comparison_bound_exact_and_same_name_pairs_remain_and_it_is_said(
    repo: FixtureRepo,
) -> None:
    def module(prefix: str, op: str, n: int) -> str:
        return "".join(f"def {prefix}{i}(x):\n    y = x {op} {i}\n    z = y {op} {i}\n"
                       f"    return z\n\n\n" for i in range(n))

    repo.commit({"a.py": module("alpha", "*", 250), "keep.py": "def kept(v):\n    return v\n"})
    # 250 removed and 250 unrelated added (62,500 pairs: past the bound), plus one function
    # moved to another file keeping its name.
    sha = repo.commit({"a.py": module("beta", "-", 250), "keep.py": None,
                       "b.py": "def kept(v):\n    return v\n"})
    changes = commit_changes(repo.repo, resolve_commit(repo.repo, sha))
    assert changes.limits_hit == ("lineage_limit",)
    kept = {c.locator: c for c in changes.changes}["python:function:b.kept"]
    assert (kept.change_kind, kept.previous_locator) == ("moved", "python:function:keep.kept")


def test_a_bulk_rename_with_identical_bodies_pairs_every_function(repo: FixtureRepo) -> None:
    def module(prefix: str) -> str:
        return "".join(f"def {prefix}{i}(x):\n    return x * {i}\n\n\n" for i in range(300))

    repo.commit({"a.py": module("alpha")})
    sha = repo.commit({"a.py": module("beta")})
    changes = commit_changes(repo.repo, resolve_commit(repo.repo, sha))
    moved = {c.locator: c.previous_locator for c in changes.changes if c.change_kind == "moved"}
    assert len(moved) == 300 and changes.limits_hit == ()
    assert moved["python:function:a.beta7"] == "python:function:a.alpha7"


def test_an_uncommitted_rename_is_one_move_too(repo: FixtureRepo) -> None:
    from warpline.git.attribution import worktree_changes

    repo.commit({"hdr.py": PARSER})
    repo.write_worktree("hdr.py", PARSER.replace("parse_header", "split_header"))
    moved = {c.locator: c for c in worktree_changes(repo.repo)
             if c.kind == "function"}
    assert set(moved) == {"python:function:hdr.split_header"}
    assert moved["python:function:hdr.split_header"].previous_locator == \
        "python:function:hdr.parse_header"


def test_a_rename_in_place_that_renames_its_parameters_too_is_one_moved_event(
        repo: FixtureRepo) -> None:
    """requests' ``requote_path(path)`` -> ``requote_uri(uri)``: every line naming the
    parameter changed, so only the comparison with parameters by position pairs them."""
    before = '''\
def unquote_unreserved(uri):
    return uri


def requote_path(path):
    """Re-quote the given URL path component.

    This function passes the given path through an unquote/quote cycle to
    ensure that it is fully and consistently quoted.
    """
    return quote(unquote_unreserved(path), safe="!#$%&'()*+,/:;=?@[]~")
    return "/".join(parts)
'''
    after = before.replace("requote_path(path)", "requote_uri(uri)").replace(
        "URL path component", "URI").replace("given path", "given URI").replace(
        "unquote_unreserved(path)", "unquote_unreserved(uri)")
    repo.commit({"utils.py": before})
    sha = repo.commit({"utils.py": after})
    changes = _changes(repo, sha)
    assert _defs(changes) == {("python:function:utils.requote_uri", "moved",
                               "python:function:utils.requote_path")}
    assert changes["python:function:utils.requote_uri"].also_modified is True


def test_parameters_by_position_do_not_pair_unrelated_functions_of_one_file(
        repo: FixtureRepo) -> None:
    before = ("def load(path):\n    with open(path) as handle:\n        data = handle.read()\n"
              "    return data.decode('utf-8')\n")
    after = ("def store(target, payload):\n    if not payload:\n        raise ValueError(target)\n"
             "    target.write_bytes(payload)\n")
    repo.commit({"io.py": before})
    sha = repo.commit({"io.py": after})
    assert _defs(_changes(repo, sha)) == {("python:function:io.store", "added", None),
                                          ("python:function:io.load", "removed", None)}


def test_a_rename_and_a_new_definition_taking_the_old_name_in_one_commit(
    repo: FixtureRepo,
) -> None:
    repo.commit({"hdr.py": PARSER})
    new_parse = 'def parse_header(blob):\n    import json\n    return json.loads(blob)["h"]\n'
    renamed = PARSER.replace("parse_header", "split_header")
    sha = repo.commit({"hdr.py": new_parse + "\n\n" + renamed})
    changes = _changes(repo, sha)
    assert _defs(changes) == {
        ("python:function:hdr.split_header", "moved", "python:function:hdr.parse_header"),
        ("python:function:hdr.parse_header", "added", None),
    }
    assert changes["python:function:hdr.split_header"].also_modified is False


def test_an_edited_function_and_an_added_copy_of_it_keep_their_own_names(
    repo: FixtureRepo,
) -> None:
    """The old name still holds the old definition (edited a little): the added copy is a
    new definition, not the lineage."""
    repo.commit({"hdr.py": PARSER})
    copy = PARSER[PARSER.index("def parse_header"):PARSER.index("def unrelated")].replace(
        "parse_header", "parse_header_strict")
    edited = PARSER.replace("strict=False", "strict=True")
    sha = repo.commit({"hdr.py": edited + "\n\n" + copy})
    assert _defs(_changes(repo, sha)) == {
        ("python:function:hdr.parse_header", "modified", None),
        ("python:function:hdr.parse_header_strict", "added", None),
    }


def test_a_rewritten_function_and_an_unrelated_added_one_are_not_paired(
    repo: FixtureRepo,
) -> None:
    repo.commit({"hdr.py": PARSER})
    rewritten = PARSER.replace(
        PARSER[PARSER.index("    name, sep"):PARSER.index("def unrelated")],
        "    import json\n    return json.loads(text)\n\n\n")
    other = "def checksum(data):\n    total = 0\n    for byte in data:\n" \
            "        total = (total * 31 + byte) % 65521\n    return total\n"
    sha = repo.commit({"hdr.py": rewritten + "\n\n" + other})
    assert _defs(_changes(repo, sha)) == {
        ("python:function:hdr.parse_header", "modified", None),
        ("python:function:hdr.checksum", "added", None),
    }


def test_a_body_extracted_into_a_new_function_leaves_the_lineage_with_the_caller(
    repo: FixtureRepo,
) -> None:
    """requests e477fce: cookiejar_from_dict's loop became add_dict_to_cookiejar, which
    cookiejar_from_dict now calls: the old name is still the original definition."""
    repo.commit({"hdr.py": PARSER})
    body = PARSER[PARSER.index("    name, sep"):PARSER.index("def unrelated")]
    extracted = PARSER.replace(body, "    return _split(text, strict)\n\n\n") + (
        "\n\ndef _split(text, strict):\n" + body.rstrip("\n") + "\n")
    sha = repo.commit({"hdr.py": extracted})
    assert _defs(_changes(repo, sha)) == {
        ("python:function:hdr.parse_header", "modified", None),
        ("python:function:hdr._split", "added", None),
    }


def test_a_body_carried_on_under_an_extended_name_takes_the_lineage_from_its_wrapper(
    repo: FixtureRepo,
) -> None:
    """cobra 3f60599 (Go; the rule is every language's): ``Execute``'s body went on as
    ``ExecuteC`` (one more result) and ``Execute`` became a wrapper calling it. A name that
    extends the old one is a variant of the definition, not a piece extracted from it: the
    body's lineage goes on under it, and the wrapper begins a lineage of its own."""
    repo.commit({"hdr.py": PARSER})
    body = PARSER[PARSER.index("    name, sep"):PARSER.index("def unrelated")]
    variant = PARSER.replace(body, "    return parse_header_ex(text, strict)[:2]\n\n\n") + (
        "\n\ndef parse_header_ex(text, strict=False):\n"
        + body.rstrip("\n").replace("return name, value", "return name, value, sep") + "\n")
    sha = repo.commit({"hdr.py": variant})
    assert _defs(_changes(repo, sha)) == {
        ("python:function:hdr.parse_header", "added", None),
        ("python:function:hdr.parse_header_ex", "moved", "python:function:hdr.parse_header"),
    }


def test_a_method_whose_body_went_to_a_new_base_class_keeps_its_lineage_when_it_delegates(
    repo: FixtureRepo,
) -> None:
    """pip 3b06cb6: ``LinkCandidate.__init__``'s body moved into a new base class, the
    old method now calls ``super().__init__``: the old name is still the original."""
    repo.commit({"progress.py": REPORTER})
    base = REPORTER.replace("class ProgressReporter:", "class _Base:").replace(
        '    """Reports the speed of a transfer."""\n\n    interval = 0.5\n\n', "")
    sub = ("\n\nclass ProgressReporter(_Base):\n    interval = 0.5\n\n"
           "    def __init__(self, total):\n        super().__init__(total)\n")
    changes = _changes(repo, repo.commit({"progress.py": base + sub}))
    init = changes["python:function:progress.ProgressReporter.__init__"]
    assert init.change_kind == "modified"
    assert changes["python:function:progress._Base.__init__"].change_kind == "added"


VENV = '''\
import sys


def _running_under_venv():
    """Checks if sys.base_prefix and sys.prefix match.

    This handles PEP 405 compliant virtual environments.
    """
    return sys.prefix != getattr(sys, "base_prefix", sys.prefix)


def running_under_virtualenv():
    """True if we're running inside a virtual environment, False otherwise."""
    return _running_under_venv()
'''


def test_a_wrapper_that_absorbs_the_function_it_called_continues_that_function(
    repo: FixtureRepo,
) -> None:
    """pip 5c17db0 ("remove redundant function call"): the one-line wrapper now holds the
    body of the function it called, which is gone. The body's lineage goes on under the
    wrapper's name (the mirror of the renamed-away rule); the text moved unchanged."""
    repo.commit({"venv.py": VENV})
    body = VENV[VENV.index("def _running"):VENV.index("\n\n\ndef running")]
    sha = repo.commit({"venv.py": "import sys\n\n\n" + body.replace(
        "_running_under_venv", "running_under_virtualenv") + "\n"})
    changes = _changes(repo, sha)
    assert _defs(changes) == {("python:function:venv.running_under_virtualenv", "moved",
                               "python:function:venv._running_under_venv")}
    assert not changes["python:function:venv.running_under_virtualenv"].also_modified
