"""Pure formatting for people: tables sized to the terminal. Writing happens in cli.main."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from warpline import settings


def terminal_width(is_tty: bool, default: int = 100) -> int:
    """The terminal's width; output to a pipe or file is never cut."""
    if not is_tty:
        return 10_000
    return shutil.get_terminal_size((default, 24)).columns


def use_color(is_tty: bool) -> bool:
    return is_tty and not settings.no_color()


# Columns of names: shortened from the left, so the distinctive tail stays
# (``…sessions.Session.request``, not ``requests.sessions.Sessi…``).
TAIL_COLUMNS = frozenset({"ENTITY", "AFFECTED", "SEED", "PATH"})
EMPTY = "-"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, width: int) -> str:
    """A plain-text table; the widest columns shrink (with an ellipsis) to fit ``width``;
    a column with nothing in any row is left out (its header says nothing either)."""
    cells = [[_text(c) for c in row] for row in rows]
    if cells:
        keep = [i for i in range(len(headers)) if any(row[i] != EMPTY for row in cells)]
        headers = [headers[i] for i in keep]
        cells = [[row[i] for i in keep] for row in cells]
    tails = [h in TAIL_COLUMNS for h in headers]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    gap = 2
    budget = max(width - gap * (len(headers) - 1), len(headers) * 4)
    while sum(widths) > budget:  # names give way first (cut from the left), then the rest
        names = [i for i in range(len(widths)) if tails[i] and widths[i] > 16]
        widest = max(names or range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= 8:
            break
        widths[widest] -= 1
    plain = [False] * len(headers)
    lines = [_line(headers, widths, gap, plain),
             _line(["-" * w for w in widths], widths, gap, plain)]
    lines.extend(_line(row, widths, gap, tails) for row in cells)
    return "\n".join(line.rstrip() for line in lines)


def _line(cells: Sequence[str], widths: Sequence[int], gap: int,
          tails: Sequence[bool]) -> str:
    return (" " * gap).join(_fit(cell, w, tail).ljust(w)
                            for cell, w, tail in zip(cells, widths, tails, strict=True))


def _fit(cell: str, width: int, tail: bool = False) -> str:
    if len(cell) <= width:
        return cell
    if tail:
        return "…" + cell[len(cell) - max(width - 1, 0):]
    return cell[: max(width - 1, 0)] + "…"


def when(instant: str | None) -> str | None:
    """``2012-07-01T10:00:00Z`` -> ``2012-07-01 10:00`` (UTC; ``--json`` keeps seconds)."""
    if not instant or len(instant) < 16 or instant[10] != "T":
        return instant
    return f"{instant[:10]} {instant[11:16]}"


def person(actor: str | None) -> str | None:
    """``Kenneth Reitz <me@kennethreitz.org>`` -> ``Kenneth Reitz`` (a table's actor: the
    name; ``--json`` keeps the whole ``Name <email>``)."""
    if not actor:
        return None
    name = actor.split(" <", 1)[0].strip()
    return name or actor


def _text(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value)
    return str(value)
