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


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, width: int) -> str:
    """A plain-text table; the widest columns shrink (with an ellipsis) to fit ``width``."""
    cells = [[_text(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    gap = 2
    budget = max(width - gap * (len(headers) - 1), len(headers) * 4)
    while sum(widths) > budget:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= 8:
            break
        widths[widest] -= 1
    lines = [_line(headers, widths, gap), _line(["-" * w for w in widths], widths, gap)]
    lines.extend(_line(row, widths, gap) for row in cells)
    return "\n".join(line.rstrip() for line in lines)


def _line(cells: Sequence[str], widths: Sequence[int], gap: int) -> str:
    return (" " * gap).join(_fit(cell, w).ljust(w) for cell, w in zip(cells, widths, strict=True))


def _fit(cell: str, width: int) -> str:
    return cell if len(cell) <= width else cell[: max(width - 1, 0)] + "…"


def _text(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value)
    return str(value)
