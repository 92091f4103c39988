"""Wire facts that need no pydantic: the timestamp pattern and its renderer, and which
strings pydantic can hold.

``common.py`` builds its ``Timestamp`` type from these; the pydantic-free churn answer
(``service/history/churn_wire.py``) renders and checks its instants with the same two.
"""

from __future__ import annotations

from datetime import UTC, datetime

# The largest integer the models take as an int (pydantic's strict int is 64-bit here).
MAX_INT64 = 2**63 - 1
TIMESTAMP_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$"


# The instants a four-digit year can say: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
FIRST_INSTANT = -62_135_596_800
LAST_INSTANT = 253_402_300_799


def iso_z(epoch_seconds: int) -> str:
    """Render stored epoch seconds as the wire's UTC instant (``2026-06-25T10:00:00Z``).
    The year is always four digits (``strftime("%Y")`` writes year 999 as ``999``), and a
    stored time outside years 1..9999 (a remote's claim) is shown at the nearest end."""
    moment = datetime.fromtimestamp(min(max(int(epoch_seconds), FIRST_INSTANT), LAST_INSTANT),
                                    tz=UTC)
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}Z"


def holds_as_text(text: str) -> bool:
    """pydantic holds strings as UTF-8: one with a lone surrogate is not valid to it."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True



def language_fields(locator: object, path: object = None) -> dict[str, str | None]:
    """An entity's ``language`` and ``language_kind`` on the wire, read from its locator
    and file (``warpline.lang.describe_locator``); both null for no locator."""
    if not isinstance(locator, str):
        return {"language": None, "language_kind": None}
    from warpline.lang import describe_locator

    language, kind = describe_locator(locator, path if isinstance(path, str) else None)
    return {"language": language, "language_kind": kind}
