"""``--format`` renderings of envelopes: pure functions, envelope in, text out.

* ``markdown`` for the re-verify worklist: a pull-request comment (changed entities,
  dependents with their why-paths, test commands, verification state, and the
  completeness / staleness caveats in words).
* ``mermaid`` and ``dot`` for the blast radius: the affected subgraph (seeds, affected
  entities, the ``via_edges`` between them). Edges point as the indexer gives them,
  caller -> callee, so every arrow leads towards a changed entity.

Both read exactly the frozen ``warpline.reverify_worklist.v1`` / ``warpline.impact_radius.v1``
shapes. Output is deterministic (node ids are assigned in a sorted order), so it can be
diffed and pinned in tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from warpline.errors import InvalidArgument

Env = dict[str, Any]

IMPACT = "warpline_impact_radius_get"
REVERIFY = "warpline_reverify_worklist_get"
_ALIASES = {"blast_radius": IMPACT, "blast-radius": IMPACT, "reverify": REVERIFY}


def supported_formats(tool: str) -> tuple[str, ...]:
    """The ``--format`` values ``tool`` (endorsed name or shim) can be rendered in."""
    endorsed = _ALIASES.get(tool, tool)
    return tuple(fmt for (name, fmt) in _RENDERERS if name == endorsed)


def render_format(tool: str, envelope: Env, fmt: str) -> str:
    """Render a success envelope of ``tool`` as ``fmt``; ``invalid_argument`` (field
    ``format``) when that pair has no renderer."""
    renderer = _RENDERERS.get((_ALIASES.get(tool, tool), fmt))
    if renderer is None:
        offered = ", ".join(supported_formats(tool)) or "none"
        raise InvalidArgument(f"--format {fmt!r} is not available for {tool}; choose one of: "
                              f"{offered} (or omit --format for the table, --json for the "
                              "envelope).", field="format", value=fmt)
    return renderer(envelope["data"], envelope).rstrip("\n") + "\n"


# -- shared words -------------------------------------------------------------------------

def short_name(locator: str | None, sei: str | None = None) -> str:
    """``python:function:demo.auth.login`` -> ``demo.auth.login``; files keep their path."""
    if not locator:
        return sei or "(unknown entity)"
    parts = locator.split(":", 2)
    return parts[2] if len(parts) == 3 and parts[0] in ("python", "core") else locator


def _sha(sha: str | None) -> str:
    return sha[:10] if sha else "?"


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def affected_words(data: Env) -> str:
    """An empty blast radius in words that never claim "none" where the graph could not
    see: no graph, or changed entities the graph does not hold (new since the snapshot,
    or of a language it holds nothing of: ``service/shared/unseen.py``)."""
    if data.get("affected"):
        return f"affected: {len(data['affected'])} shown"
    if data.get("completeness") in ("NO_SNAPSHOT", "SKIPPED"):
        return "affected: unknown (no graph)"
    code = [s for s in data.get("changed", []) if (s.get("entity") or {}).get("kind") != "file"]
    blind = [s for s in code if s.get("in_snapshot") is False]
    if code and len(blind) == len(code):
        noun = _plural(len(code), "changed entity", "changed entities")
        return f"affected: unknown (the graph holds none of the {noun}; see the warnings)"
    if blind:
        return (f"affected: none found within the depth for {len(code) - len(blind)}; "
                f"unknown for {len(blind)} not in the graph")
    return "affected: none within the depth"


def caveats(data: Env, *, with_ingest: bool = True, paging: bool = True,
            envelope: Env | None = None) -> list[str]:
    """Completeness, staleness, ingest and paging, in words a reviewer can act on.

    ``with_ingest=False`` leaves out the ingest caveat, for a rendering that also prints
    the envelope's warnings (which state it already: each fact once); ``paging=False`` the
    paging one (a picture says what it drew instead, with no cursor to type). With the
    ``envelope``, the paging caveat names the command for the next page, runnable as
    printed."""
    out: list[str] = []
    completeness = data.get("completeness")
    if completeness == "DELTA":
        out.append("The dependency graph is partial (DELTA): some entities could not be "
                   "captured (files that did not parse, a size bound, or a changed-only "
                   "capture), so some dependents may be missing. Treat the list as a floor.")
    elif completeness == "NO_SNAPSHOT":
        out.append("No dependency-graph snapshot exists, so only the changed entities are "
                   "listed: no dependents does **not** mean nothing depends on them. Run "
                   "`warpline capture-snapshot`, then ask again.")
    elif completeness == "SKIPPED":
        out.append("Dependents were skipped (no graph source could answer): only the changed "
                   "entities are listed.")
    staleness = data.get("staleness") or {}
    snap = staleness.get("snapshot_commit")
    behind = staleness.get("commits_behind")
    if snap and staleness.get("is_ancestor") is False:
        out.append(f"The graph was captured at `{_sha(snap)}`, which is not an ancestor of "
                   "HEAD (another branch, or rewritten history): its edges may not describe "
                   "this code.")
    elif snap and behind:
        out.append(f"The graph was captured at `{_sha(snap)}`, {_plural(behind, 'commit')} "
                   "behind HEAD: calls added since then are missing.")
    dirty = staleness.get("dirty_paths") or []
    if dirty:
        shown = ", ".join(f"`{p}`" for p in dirty[:5]) + (" …" if len(dirty) > 5 else "")
        out.append(f"Uncommitted changes touch files in the graph ({shown}).")
    ingest = data.get("ingest") or {}
    if with_ingest and ingest.get("shallow"):
        out.append("This is a shallow clone: history before its boundary is missing, so "
                   "the answer is partial (`git fetch --unshallow`, or `fetch-depth: 0`).")
    elif with_ingest and ingest.get("complete") is False:
        out.append(f"The change history is {_plural(ingest.get('commits_behind', 0), 'commit')}"
                   " behind HEAD: run `warpline backfill` for the complete picture.")
    page = data.get("page") or {}
    if paging and page.get("has_more"):
        shown_count = len(data.get("items") or data.get("affected") or [])
        out.append(f"This shows {shown_count} of {data.get('total')} items; the rest are on "
                   f"later pages (`{_next_page(envelope, page.get('next_cursor'))}`).")
    return out


def _next_page(envelope: Env | None, cursor: object) -> str:
    """The command for the next page (the query's tool and arguments, with the cursor),
    or the flag alone when the answer's query is not at hand."""
    query = (envelope or {}).get("query") or {}
    if not query.get("tool") or not isinstance(cursor, str):
        return f"--cursor {cursor}"
    from warpline.cli.next_cmd import shell_command

    arguments = {"repo": query.get("repo"), **(query.get("arguments") or {}),
                 "cursor": cursor}
    return shell_command(str(query["tool"]), arguments)


# -- markdown: the re-verify worklist as a pull-request comment -----------------------------

_STATE = {"fresh": "✅ fresh", "stale": "⚠️ stale", "unverified": "❌ unverified"}


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _verification(state: Env) -> str:
    raw = str(state.get("state", "?"))
    words = _STATE.get(raw, raw)
    commit = state.get("last_verified_commit")
    if commit:
        kinds = ", ".join(state.get("kinds") or [])
        words += f" (last: {_code(_sha(commit))}{' ' + kinds if kinds else ''}" \
                 f"{_SCOPE.get(str(state.get('scope')), '')}" \
                 f"{' ' + str(state['selection_basis']) if state.get('selection_basis') else ''}" \
                 f"{_claim(state)})"
    return words


def _claim(state: Env) -> str:
    """Whose claim the record is, unless this clone's own (freshness ``claimed_by``)."""
    if state.get("claimed_by") == "ci_identity":
        return f"; signed by {state.get('signer')}"
    return "; an unverified remote claim" if state.get("claimed_by") == "remote_unverified" \
        else ""


# What the record's pass covered (warpline.scope): said unless it was the whole suite.
_SCOPE = {"selection": "; a selection on basis", "attested": "; attested, no run seen",
          "unknown": "; scope unknown"}


def _why(item: Env) -> str:
    """The path from the dependent to its seed: ``a`` calls ``b`` calls ``seed``."""
    edges = item.get("why") or []
    if not edges:
        return "-"
    text = _code(short_name(edges[-1]["from"]))
    for edge in reversed(edges):
        text += f" {edge['kind']} {_code(short_name(edge['to']))}"
    return text


def _markdown_worklist(data: Env, envelope: Env) -> str:
    items: list[Env] = data.get("items", [])
    changed = [i for i in items if i.get("reason") == "changed"]
    downstream = [i for i in items if i.get("reason") != "changed"]
    summary = data.get("verification_summary") or {}
    arguments = (envelope.get("query") or {}).get("arguments") or {}
    scope = arguments.get("rev_range") or (
        f"{arguments['base_ref']}..{arguments.get('head_ref', 'HEAD')}"
        if arguments.get("base_ref") else None)
    lines = ["## warpline: what to re-verify" + (f" for {_code(scope)}" if scope else ""), ""]
    total = int(data.get("total") or len(items))
    changed_total = data.get("changed_total")
    if changed_total is None:  # an envelope from before the field: this page's count
        changed_total = len(changed) if total == len(items) else None
    if not items and not total:
        lines.append("Nothing to re-verify: no changed entities in this range.")
    else:
        counts = (f"{_plural(changed_total, 'changed entity', 'changed entities')}, "
                  f"{_plural(total - changed_total, 'dependent')}"
                  if changed_total is not None else _plural(total, "item"))
        lines.append(
            f"**{counts}** · verification: "
            f"{summary.get('fresh', 0)} fresh, {summary.get('stale', 0)} stale, "
            f"{summary.get('unverified', 0)} unverified · graph: {data.get('completeness')}"
            + _selection_words(data.get("selection")))
    notes = caveats(data, with_ingest=False, envelope=envelope)
    notes.extend(w for w in envelope.get("warnings", []) if w not in notes)
    if notes:
        lines += ["", "> [!WARNING]", *(f"> - {n}" for n in notes)]
    linked = any(work_links(i) for i in items)
    work_head = ("Work",) if linked else ()
    # A column no row fills says nothing: priority only when some item has one.
    ranked = any(i.get("priority", "unknown") != "unknown" for i in items)
    prio_head = ("Priority",) if ranked else ()

    def prio(item: Env) -> tuple[str, ...]:
        return (str(item.get("priority", "unknown")),) if ranked else ()

    if changed:
        header = ("Entity", "Kind", "Path", *prio_head, *work_head, "Tests", "Verification")
        rows = [_row((_code(short_name(i["entity"].get("locator"), i["entity"].get("sei"))),
                      i["entity"].get("kind") or "-", _code(i["entity"].get("path") or "-"),
                      *prio(i), *((work_links(i) or "-",) if linked else ()),
                      _tests_cell(i), _verification(i["verification"])))
                for i in changed]
        lines += _section(_shown("Changed", len(changed), changed_total),
                          [_row(header), "|---" * len(header) + "|", *rows], len(rows))
    if downstream:
        header = ("Entity", "Depth", "Why", *prio_head, *work_head, "Tests", "Verification")
        rows = [_row((_code(short_name(i["entity"].get("locator"), i["entity"].get("sei"))),
                      str(i.get("depth")), _why(i), *prio(i),
                      *((work_links(i) or "-",) if linked else ()),
                      _tests_cell(i), _verification(i["verification"])))
                for i in downstream]
        lines += _section(_shown("Dependents", len(downstream),
                                 None if changed_total is None else total - changed_total),
                          [_row(header), "|---" * len(header) + "|", *rows], len(rows))
    if partners := co_change_lines(data, _code):
        lines += ["", f"**{partners[0]}**", *(f"- {line}" for line in partners[1:])]
    lines += _tests_to_run(data, envelope)
    lines += _inspections(items)
    lines += ["", f"<sub>warpline {envelope.get('meta', {}).get('producer', {}).get('version', '')}"
                  f" · {envelope.get('schema', '')}</sub>"]
    return "\n".join(lines)


def _shown(title: str, shown: int, total: int | None) -> str:
    """A section title saying when it holds only this page's part of the answer."""
    return title if total is None or total == shown else f"{title} ({shown} of {total} shown)"


def co_change_lines(data: Env, code: Any = str) -> list[str]:
    """``data.co_change`` in words: a heading, then one line per partner (none: nothing)."""
    partners: list[Env] = data.get("co_change") or []
    if not partners:
        return []
    return ["Usually changes with these, not in this change (inspect; no tests added):",
            *(_partner(p, code) for p in partners)]


FEW_COMMITS = 5  # a confidence read from fewer commits than this is said to be weak


def _partner(partner: Env, code: Any) -> str:
    """One partner: its support beside its confidence, as the count it is (2 of 2 commits
    is confidence 1.00, and said to be read from few commits)."""
    support, confidence = int(partner["support"]), float(partner["confidence"])
    base = round(support / confidence) if confidence > 0 else support
    with_ = partner.get("changed_with") or []
    whom = short_name(with_[0]) if len(with_) == 1 else "the changed entities"
    few = f"; only {_plural(base, 'commit')}, weak evidence" if base < FEW_COMMITS else ""
    return (f"{code(partner['locator'])}: in {support} of the {base} commits that "
            f"changed {whom} (confidence {confidence:.2f}{few}), last "
            f"{code(_sha(partner['last_commit']))}")


def _selection_words(selection: Env | None) -> str:
    if not selection:
        return ""
    return " · tests: " + selection_summary(selection, True, _code)


def selection_summary(selection: Env, runnable: bool,
                      quote: Callable[[str], str] = lambda text: text) -> str:
    """The one selection in words, counting what its command runs: what every output's
    header says (the table, the markdown, ``warpline ci``)."""
    where = ""
    if selection.get("map_commit"):
        where = f", map {quote(_sha(selection['map_commit']))}"
        if selection.get("map_commits_behind"):
            where += f" {selection['map_commits_behind']} behind"
    basis = selection.get("basis") or "none"
    if selection.get("cosmetic_only"):
        return "none to run (every change is cosmetic)"
    if selection.get("nothing_to_run"):
        why = ("every selected test is gone from the work tree"
               if selection.get("dropped_tests") else
               "every change is documentation, CI configuration or cosmetic")
        return f"none to run ({why})"
    tests = [str(t) for t in selection.get("tests") or []]
    whole = [str(r.get("runner")) for r in selection.get("runners") or [] if r.get("whole_suite")]
    config = [str(c["locator"]).removeprefix("core:file:")
              for c in selection.get("non_code") or [] if c.get("kind") == "test_config"]
    suites = ""
    if whole:
        because = f"; {', '.join(config[:3])} changed" if config else ""
        suites = f"the whole suite of {', '.join(whole)}{because}"
    if not tests:
        if suites:
            return suites
        return f"none known (basis {basis}{where}): " + \
            ("run the whole suite" if runnable else "no runner proposed (see the warnings)")
    files = sum(1 for t in tests if "::" not in t)
    parts = f"{len(tests) - files} tests and {files} whole test files or folders; " \
        if files else ""
    counted = f"{len(tests)} selected ({parts}basis {basis}{where})"
    return counted + (f", and {suites}" if suites else "")


def _tests_cell(item: Env) -> str:
    """How many tests are known to exercise the item: the map's count when it holds the
    entity, else the static graph's suggestions."""
    mapped = item.get("map_tests")
    if mapped:
        return f"{mapped} (map)"
    static = sum(1 for s in item.get("suggested_verification") or [] if s.get("kind") == "test")
    if static:
        return f"{static} (graph)"
    return "0 (map)" if mapped == 0 else "-"


def _tests_to_run(data: Env, envelope: Env) -> list[str]:
    """The selection's command: the same tests every other output runs."""
    selection = data.get("selection") or {}
    command = selection_command(envelope)
    if command is None:
        return []
    title = f"Tests to run: {selection_summary(selection, True)}"
    return ["", f"### {title}", "", "```sh", command, "```"]


def runner_commands(envelope: Env, runner: str | None = None) -> list[str]:
    """The selection's commands, one per test runner (``data.selection.runners``, in the
    order of ``next_actions.commands``); only ``runner``'s when given."""
    selection = (envelope.get("data") or {}).get("selection") or {}
    runs = selection.get("runners")
    if not runs:  # none (an envelope made without per-runner entries): as before them,
        return _first_runner_command(envelope)  # the first command starting a runner
    return [str(run["command"]) for run in runs
            if run.get("command") and runner in (None, run.get("runner"))]


def _first_runner_command(envelope: Env) -> list[str]:
    from warpline.runners import RUNNERS

    starts = (*{r.whole_suite.split()[0] for r in RUNNERS}, "(cd ")
    for action in envelope.get("next_actions", {}).get("commands", []):
        command = str(action.get("command", ""))
        if command.startswith(starts):
            return [command]
    return []


def selection_command(envelope: Env) -> str | None:
    """The command running the selection: each runner's, joined with ``&&`` (one runner:
    ``next_actions.commands[0]``); None when nothing is to run."""
    commands = runner_commands(envelope)
    return " && ".join(commands) if commands else None


def _inspections(items: list[Env]) -> list[str]:
    inspect: list[str] = []
    for item in items:
        if item.get("map_tests"):
            continue  # the map saw tests execute it: not a blind spot
        name = short_name(item["entity"].get("locator"), item["entity"].get("sei"))
        for suggestion in item.get("suggested_verification") or []:
            if suggestion.get("kind") == "inspection":
                callers = ", ".join(_code(short_name(c)) for c in suggestion.get("callers", []))
                inspect.append(f"- {_code(name)}: no test is known to reach it"
                               + (f"; read its callers {callers}" if callers else ""))
    return _section("To inspect by hand", inspect, len(inspect)) if inspect else []


# Sections longer than this are folded (``<details>``), so a comment stays readable.
FOLD_ROWS = 10


def _section(title: str, body: list[str], rows: int) -> list[str]:
    """A titled section of ``rows`` entries; folded when there are more than FOLD_ROWS."""
    if rows <= FOLD_ROWS:
        return ["", f"### {title}", "", *body]
    return ["", "<details>", f"<summary><b>{title}</b> ({rows})</summary>", "", *body, "",
            "</details>"]


def work_links(item: Env) -> str:
    """Linked issues as ``id title`` (first three, then a count)."""
    links = (item.get("enrichment") or {}).get("work") or []
    words = [f"{w.get('issue_id')} {w.get('title') or ''}".strip() for w in links[:3]]
    if len(links) > 3:
        words.append(f"+{len(links) - 3} more")
    return "; ".join(words)


# -- mermaid / dot: the blast radius as a picture (``warpline.cli.picture``) ---------------

def _mermaid_impact(data: Env, envelope: Env) -> str:
    from warpline.cli.picture import mermaid

    return mermaid(data, envelope)


def _dot_impact(data: Env, envelope: Env) -> str:
    from warpline.cli.picture import dot

    return dot(data, envelope)


def _pytest_command(data: Env, envelope: Env) -> str:
    """Only the selection's command (``reverify --format pytest``): ready for a shell,
    e.g. ``$(warpline reverify HEAD~1..HEAD --format pytest)`` or ``eval``. Without any
    known test it is the whole suite, ``pytest``, when pytest is the change's runner, and
    empty when it is not (code in another language: the warnings, on stderr
    (``WARNINGS_TO_STDERR``), name that project's own command)."""
    return " && ".join(runner_commands(envelope, "pytest"))


# Formats whose output must stay machine-ready: their warnings go to stderr instead.
WARNINGS_TO_STDERR = frozenset({"pytest"})


_RENDERERS: dict[tuple[str, str], Callable[[Env, Env], str]] = {
    (REVERIFY, "markdown"): _markdown_worklist,
    (REVERIFY, "pytest"): _pytest_command,
    (IMPACT, "mermaid"): _mermaid_impact,
    (IMPACT, "dot"): _dot_impact,
}
