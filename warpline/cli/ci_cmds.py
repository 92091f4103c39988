"""``warpline ci``: one command for a CI job (see ``docs/ci.md``).

Report step (default): detect the pull-request range (fetching what the clone lacks), fetch
the verification notes, write the reverify markdown to ``--markdown`` (and append it to
``$GITHUB_STEP_SUMMARY`` when set), print the test selection. In a CI job a range that
cannot be found is reported (why, in the markdown and on stdout) and the exit is 0: the
report is advisory. Record step (``--record KIND``, after the tests passed): record the
job's head commit, backed by the receipt of the test run (``unbacked_pass`` when no run on
the commit backs it; ``--attest`` records an attestation instead), and push the notes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpline import settings
from warpline.cli.output import EXIT_OK, emit_json, emit_text
from warpline.errors import InvalidArgument, WarplineError

DEFAULT_MARKDOWN = "warpline-reverify.md"


def _selection(root: Path, envelope: dict[str, Any]) -> list[str]:
    """The reverify selection (``data.selection.runners``) as command lines: per runner,
    its command, split where the row runs separately collected projects apart (pytest:
    one line per rootdir); what ``reverify``'s formats and ``pytest --warpline-select``
    run. A runner no test is known for: its whole suite; no line for code no runner the
    repository uses tests."""
    from warpline.cli.formats import runner_commands
    from warpline.runners import by_name

    selection = envelope["data"].get("selection") or {}
    if not selection.get("runners"):
        return runner_commands(envelope)  # what the formats run, as before the entries
    lines: list[str] = []
    for run in selection["runners"]:
        runner = by_name(str(run.get("runner")))
        tests = list(run.get("tests") or [])
        if runner is not None and tests and runner.command_lines is not None:
            lines += runner.command_lines(root, tests)
        elif run.get("command"):
            lines.append(str(run["command"]))
    return lines


def _fetch_notes(root: Path, repo: Any, remote: str | None, warnings: list[str]) -> Any:
    from warpline.service.admin.sync import sync

    try:
        return sync(root, repo, remote, push=False).to_dict()
    except WarplineError as exc:  # a report without other machines' records still helps
        warnings.append(f"verification notes were not fetched ({exc.code}: {exc.hint}); "
                        "freshness reflects this clone's records only.")
        return None


def _write(root: Path, path: Path, text: str, field: str) -> None:
    """A report file the job asked for, never through a link (``store_unsafe``); a path
    that cannot be written is ``invalid_argument`` on the option."""
    from warpline.setup._files import write_in_checkout

    try:
        write_in_checkout(path, text.encode("utf-8"), root=root, what=field)
    except OSError as exc:
        raise InvalidArgument(f"--{field} {str(path)!r} cannot be written ({exc.strerror}); "
                              "name a writable file.", field=field, value=str(path),
                              details={"os_error": exc.errno}) from None
    _ours(root, [path])  # a report in the checkout is never the change


def _write_report(args: argparse.Namespace, root: Path, markdown: str,
                  warnings: list[str]) -> tuple[Path, str | None]:
    from warpline.errors import StoreUnsafe
    from warpline.setup._files import write_in_checkout

    target = Path(args.markdown or DEFAULT_MARKDOWN)
    _write(root, target, markdown + "\n", "markdown")
    summary_file = settings.step_summary_file()
    if summary_file:
        try:  # the runner's summary is a courtesy: a report without it still helps
            write_in_checkout(Path(summary_file), (markdown + "\n").encode("utf-8"),
                              root=root, what="GITHUB_STEP_SUMMARY", append=True)
        except (OSError, StoreUnsafe) as exc:
            why = exc.hint if isinstance(exc, StoreUnsafe) else exc.strerror
            warnings.append(f"GITHUB_STEP_SUMMARY {summary_file!r} was not written ({why}); "
                            f"the report is in {target}.")
            summary_file = None
    return target, summary_file or None


def _ours(root: Path, written: list[Path]) -> None:
    """The files just written are warpline's, not the change (``own_files``)."""
    from warpline.service.shared.own_files import remember_outputs

    try:
        remember_outputs(root, written)
    except (OSError, WarplineError):
        pass  # an unwritable state directory: the report itself still stands


def _no_range(args: argparse.Namespace, root: Path, exc: WarplineError, kind: str) -> int:
    """A CI job whose range cannot be found still gets its (advisory) report: why."""
    why = f"{exc.code}: {exc.hint}"
    markdown = ("## warpline: no re-verify report\n\nThe range of this job could not be "
                f"found, so nothing was selected or checked:\n\n> {why}\n")
    warnings = [f"no range: {why}"]
    target, summary_file = _write_report(args, root, markdown, warnings)
    if args.selection:
        _write(root, Path(args.selection), "", "selection")
    if args.json:
        emit_json({"ci": None, "provider": kind, "error": exc.to_payload(),
                   "markdown": str(target), "step_summary": summary_file, "selection": [],
                   "warnings": warnings})
    else:
        emit_text("\n".join([f"{kind}: no range ({why})", f"markdown: {target}",
                             "tests to run: unknown (run the whole suite)",
                             *(f"warning: {w}" for w in warnings[1:])]))
    return EXIT_OK


def _report(args: argparse.Namespace, root: Path, repo: Any) -> int:
    from warpline.cli.formats import REVERIFY, render_format
    from warpline.registry import call_tool
    from warpline.service.admin.ci import detect, provider

    kind = provider(settings.ci_environment())
    try:
        found = detect(repo, base=args.base, head=args.head, remote=args.remote,
                       fetch=not args.no_fetch)
    except WarplineError as exc:
        if kind == "local":
            raise
        return _no_range(args, root, exc, kind)
    warnings: list[str] = []
    notes = None if args.no_fetch else _fetch_notes(root, repo, args.remote, warnings)
    arguments: dict[str, Any] = {"repo": str(root), "rev_range": found.rev_range}
    if args.verified_kind:
        arguments["verified_kinds"] = args.verified_kind
    envelope = call_tool(REVERIFY, arguments, cwd=Path.cwd())
    markdown = render_format(REVERIFY, envelope, "markdown")
    target, summary_file = _write_report(args, root, markdown, warnings)
    selection = _selection(root, envelope)
    if args.selection:
        _write(root, Path(args.selection), "".join(f"{c}\n" for c in selection), "selection")
    counts = envelope["data"].get("verification_summary") or {}
    if args.json:
        emit_json({"ci": found.to_dict(), "notes": notes, "markdown": str(target),
                   "step_summary": summary_file or None, "selection": selection,
                   "verification_summary": counts, "warnings": warnings + envelope["warnings"],
                   "reverify": envelope})
        return EXIT_OK
    lines = [f"{found.provider}: {found.base_ref}..{found.head_ref} = "
             f"{found.base_sha[:10]}..{found.head_sha[:10]}",
             f"worklist: {envelope['data'].get('total', 0)} items; verification "
             f"{counts.get('fresh', 0)} fresh, {counts.get('stale', 0)} stale, "
             f"{counts.get('unverified', 0)} unverified",
             f"markdown: {target}" + (" (and $GITHUB_STEP_SUMMARY)" if summary_file else "")]
    lines += [f"fetched: {what}" for what in found.fetched]
    lines.append(_selection_line(envelope["data"].get("selection") or {}, bool(selection)))
    lines += [f"  {command}" for command in selection]
    lines += [f"warning: {w}" for w in warnings + envelope["warnings"]]
    emit_text("\n".join(lines))
    return EXIT_OK


def _selection_line(selection: dict[str, Any], runnable: bool) -> str:
    from warpline.cli.formats import selection_summary

    return "tests to run: " + selection_summary(selection, runnable)


def _record(args: argparse.Namespace, root: Path, repo: Any) -> int:
    from warpline.registry import call_tool
    from warpline.service.admin.backing import record_backed
    from warpline.service.admin.ci import record_target
    from warpline.service.admin.sync import sync

    sha, actor = record_target(repo, head=args.head, remote=args.remote,
                               fetch=not args.no_fetch)
    if args.attest:
        arguments: dict[str, Any] = {"repo": str(root), "commit": sha, "kind": args.record}
        if args.actor or actor:
            arguments["actor"] = args.actor or actor
        envelope = call_tool("warpline_verification_record", arguments, cwd=Path.cwd())
    else:
        from warpline.git.lookups import head_id_or_none

        tested = str(head_id_or_none(repo) or "")
        envelope = record_backed(root, sha, tested, args.record, args.actor or actor)
    data = envelope["data"]
    line = f"{data['idempotency']}: {data['kind']} at {sha} (scope {data['scope']})"
    if args.no_push:
        emit_json({"record": envelope, "sync": None}) if args.json else emit_text(line)
        return EXIT_OK
    try:
        report = sync(root, repo, args.remote, push=True)
    except WarplineError as exc:
        print(f"warpline: {line} (stored locally; the push failed)", file=sys.stderr)
        raise exc from None
    if args.json:
        emit_json({"record": envelope, "sync": report.to_dict()})
    else:
        emit_text(f"{line}; pushed {report.notes_ref} to {report.remote}")
    return EXIT_OK


def _ci(args: argparse.Namespace) -> int:
    from warpline.service.shared.context import open_repo_only

    root, repo = open_repo_only(args.repo, Path.cwd())
    if args.record:
        return _record(args, root, repo)
    return _report(args, root, repo)


def add_parsers(sub: Any, common: Callable[..., None]) -> None:
    p = sub.add_parser("ci", help="CI job: PR range from the environment, reverify markdown, "
                                  "test selection; --record KIND records and pushes a pass")
    p.add_argument("--base", help="base ref (default: from GitHub Actions / GitLab CI vars)")
    p.add_argument("--head", help="head ref (default: the CI commit, else HEAD)")
    p.add_argument("--remote", help="remote for the notes (default: upstream's, else origin)")
    p.add_argument("--markdown", help=f"where to write the markdown (default: "
                                      f"{DEFAULT_MARKDOWN} in the current directory)")
    p.add_argument("--selection", help="also write the selection's test commands here, one "
                                       "per runner (pytest: per rootdir) and line")
    p.add_argument("--verified-kind", action="append", dest="verified_kind",
                   help="only these record kinds count as verification (repeatable)")
    p.add_argument("--no-fetch", action="store_true",
                   help="fetch nothing (neither the notes nor missing commits)")
    p.add_argument("--record", metavar="KIND",
                   help="record that the head commit passed KIND, and push the notes")
    p.add_argument("--attest", action="store_true",
                   help="with --record: record an attestation (scope attested) without a "
                        "run's receipt (a runner warpline does not watch yet)")
    p.add_argument("--actor", help="who records (default: the CI job)")
    p.add_argument("--no-push", action="store_true", help="with --record: do not push")
    common(p, listing=False)
    p.set_defaults(run=_ci)
