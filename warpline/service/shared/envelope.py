"""Building the frozen success envelope every tool returns.

pydantic loads with the first ``envelope`` built, not with this module: churn's common
shape answers without it (``service/history/churn_wire.py``) but shares ``iso_z``,
``parse_instant`` and ``arguments_echo`` from here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, Protocol, TypedDict

from warpline.models.wire import iso_z as _iso_z
from warpline.store import guard, integrity

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from warpline.models.envelope import EnvelopeBase

SAMPLE = 200  # items an envelope's model checks; the rest are grafted back


def iso_z(epoch_seconds: int | None) -> str | None:
    """A UTC instant on the wire (ISO-8601 with ``Z``); None stays None."""
    return None if epoch_seconds is None else _iso_z(epoch_seconds)


def parse_instant(value: str, field: str) -> int:
    """An ISO-8601 instant (offset or ``Z``; naive means UTC) as epoch seconds."""
    from warpline.errors import InvalidFilter

    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InvalidFilter(
            f"`{field}` must be an ISO-8601 instant such as 2026-06-25T10:00:00Z.",
            field=field, value=value) from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


_ECHO_LIST = 100


class Dumpable(Protocol):
    """A tool input: a pydantic input model, or churn's pydantic-free ``ChurnArgs``."""

    def model_dump(self, *, mode: str, exclude_unset: bool = ...) -> dict[str, Any]: ...


def arguments_echo(params: Dumpable) -> dict[str, Any]:
    """The caller's arguments as given (defaults left out), JSON-ready.

    A list argument longer than ``_ECHO_LIST`` (churn takes 50,000 refs) is echoed by its
    first ``_ECHO_LIST`` elements, and ``_truncated`` names its full length, so an answer
    never doubles its size by repeating the question."""
    full = params.model_dump(mode="json", exclude_unset=True)
    echoed: dict[str, Any] = {}
    cut: dict[str, int] = {}
    for key, value in full.items():
        if isinstance(value, list) and len(value) > _ECHO_LIST:
            echoed[key] = value[:_ECHO_LIST]
            cut[key] = len(value)
        else:
            echoed[key] = value
    if cut:
        echoed["_truncated"] = cut
    return echoed


def raw_envelope(
    *,
    tool: str,
    repo: Path | str,
    params: Dumpable,
    data: dict[str, Any],
    filters: dict[str, Any] | None = None,
    sort: dict[str, Any] | None = None,
    page: dict[str, Any] | None = None,
    warnings: list[str] | None = None,
    next_actions: dict[str, Any] | None = None,
    enrichment: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The envelope's parts before its model fills in defaults and checks them."""
    return {
        "ok": True,
        "query": {
            "repo": str(repo),
            "tool": tool,
            "arguments": arguments_echo(params),
            "filters": filters or {},
            "sort": sort or {"by": None, "order": None},
            "page": page or {"limit": None, "cursor": None},
        },
        "data": data,
        # A store git tracks is ignored (``store.guard``), a damaged one refuses writes
        # (``store.integrity``): every answer says so.
        "warnings": [*guard.trust_warnings(Path(repo)),
                     *(w for w in integrity.damage_warnings(Path(repo))
                       if w not in (warnings or [])),
                     *(warnings or [])],
        "next_actions": next_actions or {},
        "enrichment": enrichment or {},
    }


class EnvelopeParts(TypedDict):
    """``raw_envelope``'s arguments, which ``envelope`` passes through."""

    tool: str
    repo: Path | str
    params: Dumpable
    data: dict[str, Any]
    filters: NotRequired[dict[str, Any] | None]
    sort: NotRequired[dict[str, Any] | None]
    page: NotRequired[dict[str, Any] | None]
    warnings: NotRequired[list[str] | None]
    next_actions: NotRequired[dict[str, Any] | None]
    enrichment: NotRequired[dict[str, str] | None]


def envelope(*, model: type[EnvelopeBase], **parts: Unpack[EnvelopeParts]) -> dict[str, Any]:
    """Build the envelope and validate it through its frozen model (a defect, not bad
    input, if it does not fit).

    Long item lists (churn answers 50,000 refs) are validated by sample: the envelope
    with its first ``SAMPLE`` items goes through the model, the rest were built by the
    same code path and are grafted back unchanged. The contract tests validate whole
    envelopes against the JSON Schema files.
    """
    from warpline.models.common import dump

    raw = raw_envelope(**parts)
    items = raw["data"].get("items")
    sampled = isinstance(items, list) and len(items) > SAMPLE
    if sampled:
        raw["data"] = {**raw["data"], "items": items[:SAMPLE]}
    result = dump(model.model_validate(raw))
    if sampled:
        result["data"]["items"] = items
    return result
