"""``parse_refs`` (the batch parser churn uses for 50,000 refs) gives exactly what
``parse_ref`` gives element by element, errors included (same code, same field)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from warpline.errors import InvalidEntityRef, WarplineError
from warpline.service.shared.resolve import Ref, parse_ref, parse_refs

_PREFIXES = ["core:file:", "python:module:", "python:class:", "python:function:",
             "loomweave:eid:", "python:method:", "", " core:file:"]
_TEXT = st.text(alphabet=st.sampled_from([*"ab./_ \t\n\u00a0\u2003\x1c0", "é"]),
                max_size=8)
_RAW = st.one_of(
    st.builds(lambda p, t: p + t, st.sampled_from(_PREFIXES), _TEXT),
    st.builds(lambda k, v: {"kind": k, "value": v},
              st.sampled_from(["auto", "locator", "path", "bogus"]), _TEXT),
    st.integers(), st.none())


def _one(raw: object, index: int) -> Ref | tuple[str, str | None]:
    try:
        return parse_ref(raw, field=f"entity_refs[{index}]", error=InvalidEntityRef)
    except WarplineError as exc:
        return (exc.code, exc.field)


@settings(max_examples=400, deadline=None)
@given(st.lists(_RAW, max_size=6))
def test_the_batch_parser_agrees_with_the_one_ref_parser(raws: list[object]) -> None:
    expected = [_one(raw, i) for i, raw in enumerate(raws)]
    try:
        got: list[Ref | tuple[str, str | None]] = list(
            parse_refs(raws, field="entity_refs", error=InvalidEntityRef))
    except WarplineError as exc:
        first_error = next(e for e in expected if isinstance(e, tuple))
        assert (exc.code, exc.field) == first_error
        return
    assert got == expected
