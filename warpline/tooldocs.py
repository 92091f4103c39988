"""The tool table rendered for people: README's table and ``docs/tools.md``.

    python -m warpline.tooldocs            # rewrite docs/tools.md from the table
    python -m warpline.tooldocs --check    # exit 1 when docs/tools.md drifted

The meta-test holds both documents to ``warpline.registry.TOOLS``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from warpline.registry import TOOLS, ToolSpec

DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "tools.md"


def markdown_table() -> str:
    """The README's tool table."""
    lines = ["| endorsed name | shim | CLI command | contract |", "| --- | --- | --- | --- |"]
    lines.extend(f"| `{s.endorsed}` | `{s.shim}` | `warpline {s.cli_command}` | "
                 f"`{s.schema_id}` |" for s in TOOLS)
    return "\n".join(lines)


def _writes(spec: ToolSpec[Any]) -> str:
    if not spec.writes_local_state:
        return "nothing, anywhere"
    where = ", ".join(f"`{path}`" for path in spec.mutates_paths)
    refs = " and the git ref " + ", ".join(f"`{r}`" for r in spec.writes_refs) \
        if spec.writes_refs else ""
    return f"only {where}{refs}" + ("" if spec.mutating else " (the store's catch-up)")


def _section(spec: ToolSpec[Any]) -> list[str]:
    peers = ", ".join(spec.federation_dependencies) or "none"
    return [
        f"## `{spec.endorsed}`",
        "",
        spec.description,
        "",
        "| | |",
        "| --- | --- |",
        f"| shim | `{spec.shim}` |",
        f"| CLI | `warpline {spec.cli_command}` |",
        f"| input | `contracts/{spec.input_schema_file}` (`{spec.input_model.__name__}`) |",
        f"| envelope | `contracts/{spec.output_schema_file}` (`{spec.envelope_model.__name__}`) |",
        f"| writes | {_writes(spec)} |",
        f"| idempotent | {'yes' if spec.idempotent else 'no'} |",
        f"| consults | {peers} |",
        "",
    ]


_WIRE = [
    "## On the wire (MCP)",
    "",
    "`tools/list` sends the least that says how to call and read each tool: an endorsed "
    "name carries its input schema's wire form (the contract without pydantic's titles and "
    "`null` branches), one line of its answer's `data` fields, the MCP hints and its "
    "contract id in `_meta`; a shim is listed as an alias of its endorsed name. Arguments "
    "and answer shapes every tool shares are said once, in `initialize`'s instructions. No "
    "`outputSchema`: the contracts in `contracts/` are the answers' full schemas.",
    "",
    "Each answer is sent once, as compact JSON text (`content[0].text`), for every "
    "protocol version; no `structuredContent` copy. Without `repo` a tool answers for the "
    "repository the server's working directory is in; `changed` without a range answers "
    "for my work (`all_history: true`: every recorded commit). A reversed range "
    "(`HEAD..HEAD~3`) is `invalid_rev_range` naming the range the other way round; an "
    "unknown tool name is `-32601` with `data.details.did_you_mean`.",
    "",
]


def docs_page() -> str:
    """The content of ``docs/tools.md``."""
    lines = [
        "# warpline tools",
        "",
        "Generated from the tool table (`warpline/registry.py`) by `python -m "
        "warpline.tooldocs`; do not edit by hand.",
        "",
        markdown_table(),
        "",
        *_WIRE,
    ]
    for spec in TOOLS:
        lines.extend(_section(spec))
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--check"]:
        current = DOCS_PAGE.read_text(encoding="utf-8") if DOCS_PAGE.is_file() else ""
        if current != docs_page():
            print("docs/tools.md drifted: run python -m warpline.tooldocs", file=sys.stderr)
            return 1
        return 0
    DOCS_PAGE.write_text(docs_page(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
