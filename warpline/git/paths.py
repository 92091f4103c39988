"""File names that are not UTF-8, as warpline stores and shows them.

Git stores a path as bytes; pygit2 hands it over decoded as UTF-8 with
``surrogateescape``, so a byte that is not valid UTF-8 (``0xff``) arrives as a lone
surrogate (``\\udcff``), which SQLite cannot store and JSON cannot carry. Every path the
walker reports (and every locator built from one) is written in one escaped form instead:
each such byte as the four characters ``\\xff`` (lower-case hex), everything else as it
is. A UTF-8 name (all names git's own tools create on a UTF-8 system) is unchanged, so
stores written before keep their paths; ``raw`` gives the bytes back.

The one ambiguity, documented rather than hidden: a UTF-8 name that itself contains the
text ``\\x80`` ... ``\\xff`` (a backslash, ``x``, two hex digits of a byte >= 0x80) is shown
like the name with that byte; ``raw`` reads such text as the byte.
"""

from __future__ import annotations

import re

__all__ = ["raw", "shown"]

_ESCAPED = re.compile(r"\\x([89a-f][0-9a-f])")


def shown(text: str) -> str:
    """``text`` (a path or a locator holding one) with each undecodable byte escaped."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return (text.encode("utf-8", "surrogateescape")
                .decode("utf-8", "backslashreplace"))
    return text


def raw(text: str) -> bytes:
    """The bytes of the name ``shown`` gave: the path git holds."""
    out = bytearray()
    at = 0
    for match in _ESCAPED.finditer(text):
        out += text[at:match.start()].encode("utf-8")
        out.append(int(match.group(1), 16))
        at = match.end()
    out += text[at:].encode("utf-8")
    return bytes(out)
