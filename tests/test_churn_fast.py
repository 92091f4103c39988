"""churn without pydantic answers exactly what churn through the pydantic models answers.

The pydantic-free path (``service/history/churn_input.py`` parses, ``churn_wire.py``
builds and checks the answer) must be indistinguishable from the model path: the hand
check accepts only arguments the input model accepts, with the same parsed values, and the
envelope it writes is the model's, byte for byte. Held to that over generated arguments
(hypothesis), over generated damage to a real answer's parts (the hand check never vouches
for what the model would reject or rewrite), over a fixture history (renames, windows,
SEIs, unknown refs, cursors, a page past the model's sample) and over a shallow clone of
the real requests history (``requests.bundle``; skipped off CI when absent).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.contract_check import assert_valid_envelope
from tests.corpora import early_requests_or_skip
from tests.gitfixture import FixtureRepo
from warpline.errors import InvalidEntityRef, WarplineError
from warpline.limits import MAX_CHURN_REFS
from warpline.mcp import limits
from warpline.models import ChurnItem, EntityChurnCountEnvelope
from warpline.models.inputs import EntityChurnCountInput
from warpline.registry import call_tool, lookup
from warpline.service.history.churn import TOOL, churn_count
from warpline.service.history.churn_input import ChurnArgs, fast_args
from warpline.service.history.churn_wire import churn_envelope
from warpline.service.shared.envelope import SAMPLE, envelope
from warpline.service.shared.resolve import parse_refs
from warpline.store.db import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))


SORTS = ("churn_count", "sei", "locator", "last_changed_at")
T0 = 1_700_000_000
DAY = 86_400


def _bytes(envelope_: dict[str, Any]) -> tuple[bytes, bytes]:
    """The two encodings an answer leaves in: the MCP line and the tool's JSON text."""
    return limits.dumps(envelope_), json.dumps(envelope_, ensure_ascii=False).encode()


def _outcome(params: EntityChurnCountInput | ChurnArgs) -> Any:
    try:
        return _bytes(churn_count(params, None))
    except WarplineError as exc:
        return (exc.code, exc.field)


def assert_same_answer(arguments: dict[str, Any], *, fast: bool = True) -> dict[str, Any]:
    """Both paths over ``arguments``: equal bytes (or the same error); the answer."""
    model = EntityChurnCountInput.model_validate(arguments)
    args = fast_args(arguments)
    if not fast:
        assert args is None, arguments
        return churn_count(model, None)
    assert args is not None, arguments  # the common shape takes the pydantic-free path
    slow, quick = _outcome(model), _outcome(args)
    assert quick == slow
    answer = churn_count(args, None)
    assert_valid_envelope(answer)
    return answer


# -- a fixture history ---------------------------------------------------------------------

def _module(n_funcs: int, edit: int) -> str:
    return "".join(f"def f{i}(x):\n    return x + {edit if i % 3 == 0 else 0}\n\n\n"
                   for i in range(n_funcs))


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> FixtureRepo:
    repo = FixtureRepo(tmp_path_factory.mktemp("churnfast") / "repo")
    people = [("Alice", "alice@example.com"), ("Bob", "bob@example.com"),
              ("Chloé Ünal", "chloe@example.com")]
    auth = "class Client:\n    def get(self):\n        return {n}\n\n\ndef login(u):\n" \
           "    return u\n"
    for n in range(6):
        repo.commit({"src/demo/auth.py": auth.format(n=n), "src/demo/many.py": _module(230, n),
                     "README.md": f"v{n}\n"}, f"edit {n}", author=people[n % 3],
                    when=T0 + n * DAY)
    repo.commit({}, renames={"src/demo/auth.py": "src/demo/session.py"}, message="rename",
                author=people[1], when=T0 + 7 * DAY)
    repo.commit({"src/demo/session.py": auth.format(n=9)}, "after rename",
                author=people[2], when=T0 + 8 * DAY)
    call_tool("churn", {"repo": str(repo.path), "entity_refs": ["login"]})  # backfills
    with Store.open(repo.path) as store, store.transaction() as tx:
        tx.execute("UPDATE entities SET sei = 'loomweave:eid:client-get' WHERE locator = ?",
                   ("python:function:demo.session.Client.get",))
    return repo


def _locators(repo: Path) -> list[str]:
    with Store.open(repo) as store:
        return [row[0] for row in store.conn.execute(
            "SELECT locator FROM entities ORDER BY id").fetchall()]


MIXED_REFS: list[Any] = [
    "demo.session.login", "demo.auth.login", "python:function:demo.many.f3",
    "src/demo/many.py", "README.md", "1", "never.seen.anywhere", "demo.sesion.login",
    {"kind": "sei", "value": "loomweave:eid:client-get"},
    {"kind": "sei", "value": "loomweave:eid:unknown"},
    {"kind": "warpline_entity_key_id", "value": 2},
    {"value": "python:class:demo.session.Client", "kind": "locator"},
    {"kind": "auto", "value": "demo.session.Client"},
    {"kind": "qualname", "value": "demo.many.f6"},
    {"kind": "path", "value": "./src/demo/session.py"},
    "python:function:demo.many.f3",  # a duplicate ref answers twice
    "  demo.session.login  ",
]


@pytest.mark.parametrize("sort_by", SORTS)
@pytest.mark.parametrize("sort_order", ["asc", "desc"])
def test_every_sort_pages_to_the_same_bytes(history: FixtureRepo, sort_by: str,
                                            sort_order: str) -> None:
    arguments: dict[str, Any] = {"repo": str(history.path), "entity_refs": MIXED_REFS,
                                 "sort_by": sort_by, "sort_order": sort_order, "limit": 4}
    seen = 0
    while True:  # every page, each cursor issued by one path and accepted by the other
        answer = assert_same_answer(arguments)
        seen += len(answer["data"]["items"])
        cursor = answer["data"]["page"]["next_cursor"]
        if cursor is None:
            break
        arguments = {**arguments, "cursor": cursor}
    # One item a ref: a path counts its file, not each entity it held (issue 34).
    assert seen == answer["data"]["total"] == len(MIXED_REFS)


def test_windows_and_ranges_answer_the_same_bytes(history: FixtureRepo) -> None:
    repo = str(history.path)
    windows: list[Any] = [
        None, {}, {"since": "2023-11-16T00:00:00Z"}, {"until": "2023-11-17T12:00:00+02:00"},
        {"since": "2023-11-15", "until": "2023-11-20T00:00:00Z"},
        {"rev_range": "HEAD~3..HEAD"}, {"rev_range": "HEAD"},
        {"since": "2023-11-15T00:00:00Z", "until": None, "rev_range": "HEAD~5..HEAD~1"},
    ]
    for window in windows:
        answer = assert_same_answer({"repo": repo, "entity_refs": MIXED_REFS, "window": window,
                                     "limit": 50})
        assert answer["query"]["arguments"]["window"] == window
    for bad in ({"since": "yesterday"}, {"rev_range": "no-such-rev..HEAD"}):
        args = fast_args({"repo": repo, "entity_refs": ["login"], "window": bad})
        model = EntityChurnCountInput.model_validate({"repo": repo, "entity_refs": ["login"],
                                                      "window": bad})
        assert args is not None
        code = _outcome(args)
        assert code == _outcome(model) and code[0] in ("invalid_filter", "invalid_rev_range")


def test_a_page_past_the_models_sample_reads_the_same(history: FixtureRepo) -> None:
    locators = _locators(history.path)
    assert len(locators) > SAMPLE + 20
    answer = assert_same_answer({"repo": str(history.path), "entity_refs": locators,
                                 "limit": 1000, "sort_by": "locator"})
    items = answer["data"]["items"]
    assert len(items) == len(locators) and answer["query"]["arguments"]["_truncated"] == {
        "entity_refs": len(locators)}
    # Items the model did not see are written in its field order all the same.
    fields = list(ChurnItem.model_fields)
    assert {tuple(item) for item in items} == {tuple(fields)}


def test_errors_inside_the_call_are_the_same(history: FixtureRepo) -> None:
    repo = str(history.path)
    for arguments in ({"repo": repo, "entity_refs": ["login"], "cursor": "forged"},
                      {"repo": repo, "entity_refs": [{"kind": "warpline_entity_key_id",
                                                      "value": "x1"}]},
                      {"repo": repo, "entity_refs": ["   "]},
                      {"repo": str(history.path / "nope"), "entity_refs": ["login"]}):
        args = fast_args(arguments)
        assert args is not None
        outcome = _outcome(args)
        assert outcome == _outcome(EntityChurnCountInput.model_validate(arguments))
        assert isinstance(outcome, tuple)
        with pytest.raises(WarplineError) as raised:
            call_tool("churn", arguments)
        assert (raised.value.code, raised.value.field) == outcome


def test_unusual_valid_input_goes_to_the_model_and_still_answers(history: FixtureRepo) -> None:
    repo = str(history.path)
    for refs in ([{"kind": "auto", "value": 1}], [{"kind": "locator", "value": 7}]):
        assert_same_answer({"repo": repo, "entity_refs": refs}, fast=False)
        assert_valid_envelope(call_tool("churn", {"repo": repo, "entity_refs": refs}))


# -- generated calls over the fixture store ------------------------------------------------

@st.composite
def _calls(draw: st.DrawFn, locators: list[str]) -> dict[str, Any]:
    ref = st.one_of(
        st.sampled_from(locators), st.sampled_from(MIXED_REFS),
        st.text(alphabet="abcdef._/", min_size=1, max_size=8),
        st.builds(lambda kind, value: {"kind": kind, "value": value},
                  st.sampled_from(["auto", "locator", "qualname", "path", "sei"]),
                  st.sampled_from(locators)),
        st.builds(lambda n: {"kind": "warpline_entity_key_id", "value": n},
                  st.integers(1, len(locators) + 5)),
    )
    arguments: dict[str, Any] = {"repo": draw(st.sampled_from(["REPO"])),
                                 "entity_refs": draw(st.lists(ref, max_size=40))}
    for key, values in (("sort_by", st.sampled_from(SORTS)),
                        ("sort_order", st.sampled_from(["asc", "desc"])),
                        ("limit", st.integers(1, 300)),
                        ("window", st.sampled_from([None, {"since": "2023-11-17T00:00:00Z"},
                                                    {"until": "2023-11-18"},
                                                    {"rev_range": "HEAD~2..HEAD"}]))):
        if draw(st.booleans()):
            arguments[key] = draw(values)
    return arguments


def test_generated_calls_answer_the_same_bytes(history: FixtureRepo) -> None:
    locators = _locators(history.path)

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(_calls(locators))
    def check(arguments: dict[str, Any]) -> None:
        assert_same_answer({**arguments, "repo": str(history.path)})

    check()


# -- the hand check of the arguments --------------------------------------------------------

_ANY_CHAR = st.characters(exclude_categories=())  # lone surrogates too: pydantic refuses them
_TEXT = st.one_of(st.text(max_size=6), st.text(_ANY_CHAR, max_size=3),
                  st.sampled_from(["", " ", "HEAD", "2026-01-01T00:00:00Z", "python:function:a"]))
_JUNK = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**64), st.floats(allow_nan=False),
                  _TEXT, st.lists(st.integers(), max_size=2), st.just({}), st.just({"x": 1}))
_REF = st.one_of(
    _TEXT,
    st.dictionaries(st.sampled_from(["kind", "value", "extra"]), st.one_of(
        st.sampled_from(["auto", "locator", "sei", "path", "qualname",
                         "warpline_entity_key_id", "bogus"]),
        st.integers(-1, 2**64), _JUNK), max_size=3),
    _JUNK,
)
_WINDOW = st.one_of(_JUNK, st.dictionaries(
    st.sampled_from(["since", "until", "rev_range", "other"]), st.one_of(st.none(), _TEXT, _JUNK),
    max_size=3))
_ARGUMENTS = st.fixed_dictionaries({}, optional={
    "repo": st.one_of(_TEXT, _JUNK),
    "entity_refs": st.one_of(st.lists(_REF, max_size=4), _JUNK),
    "window": _WINDOW,
    "sort_by": st.one_of(st.sampled_from(SORTS), _JUNK),
    "sort_order": st.one_of(st.sampled_from(["asc", "desc", "ASC"]), _JUNK),
    "limit": st.one_of(st.integers(-1, MAX_CHURN_REFS + 2), _JUNK),
    "cursor": st.one_of(st.none(), _TEXT, _JUNK),
    "bogus": _JUNK,
})


def _parsed_refs(refs: Any) -> Any:
    try:
        return parse_refs(refs, field="entity_refs", error=InvalidEntityRef)
    except WarplineError as exc:
        return (exc.code, exc.field)


def _same_parse(args: ChurnArgs, model: EntityChurnCountInput) -> None:
    for unset in (False, True):
        assert json.dumps(args.model_dump(mode="json", exclude_unset=unset)) == json.dumps(
            model.model_dump(mode="json", exclude_unset=unset))
    assert (args.repo, args.sort_by, args.sort_order, args.limit, args.cursor) == (
        model.repo, model.sort_by, model.sort_order, model.limit, model.cursor)
    assert (args.window is None) == (model.window is None)
    if args.window is not None and model.window is not None:
        assert (args.window.since, args.window.until, args.window.rev_range) == (
            model.window.since, model.window.until, model.window.rev_range)
    assert _parsed_refs(args.entity_refs) == _parsed_refs(model.entity_refs)


@settings(max_examples=1500, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_ARGUMENTS)
def test_the_hand_check_accepts_only_what_the_model_accepts(arguments: dict[str, Any]) -> None:
    args = fast_args(arguments)
    try:
        model = EntityChurnCountInput.model_validate(arguments)
    except ValidationError:
        assert args is None, arguments
        return
    if args is not None:
        _same_parse(args, model)


COMMON = [
    {"repo": "r", "entity_refs": []},
    {"repo": "r", "entity_refs": ["python:function:a.b", "a.b", "src/a.py", "7"]},
    {"repo": "r", "entity_refs": [{"kind": "sei", "value": "loomweave:eid:x"}],
     "window": {"since": "2026-01-01T00:00:00Z", "until": None}, "limit": 5, "cursor": None},
    {"repo": "r", "entity_refs": [{"kind": "warpline_entity_key_id", "value": 3}],
     "sort_by": "sei", "sort_order": "asc", "window": None},
    {"repo": "r", "entity_refs": [f"python:function:m.f{i}" for i in range(MAX_CHURN_REFS)],
     "limit": MAX_CHURN_REFS},
    {"repo": "r", "entity_refs": ["Déjà.vu", "日本.語"], "cursor": "abc"},
]


@pytest.mark.parametrize("arguments", COMMON, ids=range(len(COMMON)))
def test_the_common_shapes_take_the_pydantic_free_path(arguments: dict[str, Any]) -> None:
    args = fast_args(arguments)
    assert args is not None
    _same_parse(args, EntityChurnCountInput.model_validate(arguments))


@pytest.mark.parametrize("arguments", [
    {"repo": "r"}, {"entity_refs": [], "bogus": 1}, {"repo": "", "entity_refs": []},
    {"repo": "r", "entity_refs": [], "limit": 0}, {"repo": "r", "entity_refs": [], "limit": True},
    {"repo": "r", "entity_refs": [], "limit": 2.0}, {"repo": "r", "entity_refs": ("a",)},
    {"repo": "r", "entity_refs": ["a"] * (MAX_CHURN_REFS + 1)},
    {"repo": "r", "entity_refs": [""]}, {"repo": "r", "entity_refs": ["\ud800"]},
    {"repo": "r", "entity_refs": [{"kind": "locator"}]},
    {"repo": "r", "entity_refs": [{"kind": "auto", "value": "a", "x": 1}]},
    {"repo": "r", "entity_refs": [], "window": {"since": ""}},
    {"repo": "r", "entity_refs": [], "window": {"bogus": "x"}},
    {"repo": "r", "entity_refs": [], "sort_by": "size"},
    {"repo": "r", "entity_refs": [], "filters": {}},
])
def test_invalid_input_keeps_the_models_error(arguments: dict[str, Any]) -> None:
    assert fast_args(arguments) is None
    with pytest.raises(WarplineError) as fast:
        call_tool("churn", arguments)
    from warpline.service.shared.validation import validate_input

    spec = lookup("churn")
    assert spec is not None
    with pytest.raises(WarplineError) as model:
        validate_input(spec, arguments)
    assert (fast.value.code, fast.value.field) == (model.value.code, model.value.field)


# -- the hand check of the answer -----------------------------------------------------------

_WIRE_JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 3), st.just(2**70), st.floats(allow_nan=False),
    st.sampled_from(["", "x", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z\n",
                     "2026-01-01T00:00:00.5Z", "2026-01-01 00:00:00Z", "\ud800", "present",
                     "absent", "partial", "desc", "locator", "function", "sei",
                     "warpline_change_list"]),
    st.just([]), st.just(["x"]), st.just({}), st.just({"a": 1}), st.just((1,)),
)


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _leaves(value, (*path, index))
    return out


def _parts(answer: dict[str, Any]) -> dict[str, Any]:
    """The parts the service hands to the envelope, recovered from an answer."""
    query = answer["query"]
    return {"data": copy.deepcopy(answer["data"]), "sort": dict(query["sort"]),
            "page": dict(query["page"]), "warnings": list(answer["warnings"]),
            "enrichment": {"sei": answer["enrichment"]["sei"]}}


def test_damaged_answers_are_never_vouched_for(history: FixtureRepo) -> None:
    arguments = {"repo": str(history.path), "entity_refs": MIXED_REFS, "limit": 6}
    args = fast_args(arguments)
    assert args is not None
    base = _parts(churn_count(args, None))
    paths = [p for p in _leaves(base) if len(p) > 1]  # inside the parts, not the parts

    @settings(max_examples=400, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.tuples(st.sampled_from(paths), st.sampled_from(["set", "drop", "add"]),
                              _WIRE_JUNK), min_size=1, max_size=3))
    def check(damage: list[tuple[tuple[Any, ...], str, Any]]) -> None:
        parts = copy.deepcopy(base)
        for path, action, value in damage:
            node: Any = parts
            try:
                for step in path[:-1]:
                    node = node[step]
                if action == "set":
                    node[path[-1]] = value
                elif action == "drop" and isinstance(node, dict):
                    node.pop(path[-1], None)
                elif action == "add" and isinstance(node, dict):
                    node["unexpected"] = value
            except (KeyError, IndexError, TypeError):
                continue
        quick = churn_envelope(tool=TOOL, repo=history.path, params=args, **parts)
        try:
            slow = envelope(model=EntityChurnCountEnvelope, tool=TOOL, repo=history.path,
                            params=args, filters={}, **copy.deepcopy(parts))
        except (ValidationError, TypeError, AttributeError):
            assert quick is None
            return
        if quick is not None:
            assert json.dumps(quick) == json.dumps(slow)

    check()


# -- a real history -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def requests_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """requests' history up to its 400th first-parent commit (~1,500 commits: a few
    seconds of backfill), from the corpus bundle."""
    clone = early_requests_or_skip(tmp_path_factory)
    subprocess.run([sys.executable, "-m", "warpline.cli", "backfill", "--repo", str(clone),
                    "--json"], check=True, capture_output=True)
    return clone


def test_a_real_history_answers_the_same_bytes(requests_clone: Path) -> None:
    locators = _locators(requests_clone)
    assert len(locators) > 300
    repo = str(requests_clone)
    refs: list[Any] = [*locators, "requests.api.get", "requests/sessions.py", "nope.nothing"]
    answers = []
    for extra in ({}, {"sort_by": "locator", "sort_order": "asc", "limit": 500},
                  {"sort_by": "last_changed_at"}, {"sort_by": "sei", "limit": 7},
                  {"window": {"rev_range": "HEAD~40..HEAD"}, "limit": 250},
                  {"window": {"since": "2012-01-01T00:00:00Z"}, "sort_order": "asc"}):
        answers.append(assert_same_answer({"repo": repo, "entity_refs": refs, **extra}))
    assert answers[0]["data"]["ingest"]["complete"] is True
    assert answers[0]["data"]["total"] == len(refs)  # a path counts its file (issue 34)
    assert any(item["churn_count"] > 10 for item in answers[0]["data"]["items"])
    assert len(answers[1]["data"]["items"]) == 500  # past the model's sample

