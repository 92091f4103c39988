"""Per-commit events from a truth tool's definitions (DESIGN section 4), for any language.

A file version is read by a truth tool into ``Defs``: the module's name and, per
definition key ``(language kind, qualname)``, its spans (first and last line, 1-based;
several for overloads or a getter/setter pair) and its wire kind. A line belongs to the
innermost definition covering it (on a shared line the later one), so a definition's
own lines exclude its nested definitions'. Per changed file pair: a key only on the new
side is ``added``, only on the old ``removed``; on both, ``moved`` when git renamed the
file or the locator changed, else ``modified`` when a zero-context diff's deleted
(non-blank) line falls in its old own lines or an added one in its new own lines, and
its own text (non-blank own lines) differs: a definition moved within its file unchanged
is not modified (the Python truth's ruling), nor one a diff slider touches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_CUT = "\x00cut"
Key = tuple[str, str, str]  # (commit sha, locator, change kind)
DefKey = tuple[str, str]  # (language kind, qualname)


@dataclass(slots=True)
class Defs:
    """The definitions of one file version, as a truth tool read them."""

    prefix: str  # the locator prefix (rust, go, java, ts)
    module: str
    spans: dict[DefKey, list[tuple[int, int]]] = field(default_factory=dict)
    wire: dict[DefKey, str] = field(default_factory=dict)  # class or function
    lines: list[str] = field(default_factory=list)  # the version's text, for own texts

    def add(self, key: DefKey, first: int, last: int, wire: str) -> None:
        self.spans.setdefault(key, []).append((first, max(first, last)))
        self.wire[key] = wire

    def locator(self, key: DefKey) -> str:
        return f"{self.prefix}:{key[0]}:{self.module}.{key[1]}"

    def own_lines(self) -> dict[DefKey, set[int]]:
        occurrences = sorted(((first, -last, key) for key, spans in self.spans.items()
                              for first, last in spans))
        owner: dict[int, DefKey] = {}
        for first, neg_last, key in occurrences:  # later (inner) occurrences paint over
            for line in range(first, -neg_last + 1):
                owner[line] = key
        out: dict[DefKey, set[int]] = {key: set() for key in self.spans}
        for line, key in owner.items():
            out[key].add(line)
        return out


def own_text(lines: list[str], own: set[int]) -> tuple[str, ...]:
    """The non-blank own lines (a line ending's ``\r`` dropped), a cut marked where a
    nested definition interrupts them."""
    out: list[str] = []
    previous = None
    for number in sorted(own):
        if previous is not None and number != previous + 1 and (not out or out[-1] != _CUT):
            out.append(_CUT)  # nested definitions with only blank lines between: one cut
        previous = number
        text = lines[number - 1].rstrip("\r") if number <= len(lines) else ""
        if text.strip():
            out.append(text)
    return tuple(out)


def pair_events(sha: str, old: Defs | None, new: Defs | None,
                changed: tuple[set[int], set[int]] | None, renamed: bool = False
                ) -> tuple[set[Key], dict[Key, bool]]:
    """One file pair's events; for ``moved``, whether the own lines were touched too.
    A file git renamed carries its definitions: each is ``moved``, even where the module
    (a Go or Java package: the directory) and so the locator stay the same."""
    events: set[Key] = set()
    edited: dict[Key, bool] = {}
    old_keys = set(old.spans) if old else set()
    new_keys = set(new.spans) if new else set()
    if new is not None:
        events.update((sha, new.locator(k), "added") for k in new_keys - old_keys)
    if old is not None:
        events.update((sha, old.locator(k), "removed") for k in old_keys - new_keys)
    if old is None or new is None:
        return events, edited
    deleted, added = changed or (set(), set())
    old_own, new_own = old.own_lines(), new.own_lines()
    for key in old_keys & new_keys:
        touched = bool(deleted & old_own[key]) or bool(added & new_own[key])
        if touched and old.lines and new.lines:
            # Touched lines with the same own text: moved within the file unchanged, or a
            # diff slider (a closing brace matched to the next definition's): not an edit.
            touched = own_text(old.lines, old_own[key]) != own_text(new.lines, new_own[key])
        locator = new.locator(key)
        if renamed or locator != old.locator(key):
            event = (sha, locator, "moved")
            events.add(event)
            edited[event] = touched
        elif touched:
            events.add((sha, locator, "modified"))
    return events, edited


def settle(events: set[Key]) -> set[Key]:
    """A locator both removed and added in one commit (a definition moved between files
    of one module, or renamed while a new one took its name) is, per locator, modified."""
    out = set(events)
    for sha, locator, kind in events:
        if kind == "removed" and (sha, locator, "added") in events:
            out -= {(sha, locator, "removed"), (sha, locator, "added")}
            out.add((sha, locator, "modified"))
    return out
