"""The blast radius as a picture a person can read: ``--format dot`` and ``mermaid``.

What is drawn (issue 34): the changed entities grouped by file (a cluster per file, its
name once, each entity by the tail of its name), the affected entities beside them, the
edges between changed entities (``data.changed_edges``) and each affected entity's path
to its seed (``via_edges``), a legend, and a caption saying what the answer is and what
it is not (completeness in words, dependents that are unknown, what was cut). Bounded: at
most ``MAX_CHANGED`` changed and ``MAX_AFFECTED`` affected entities are drawn (the most
connected first); what is cut is said in the caption and in a node where it would be,
and ``size`` keeps the rendered picture within ~2,000 px on its long side at graphviz's
96 dpi. Edges point as the indexer gives them, caller -> callee, towards the change.
Deterministic: node ids follow a sorted order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from warpline.cli.formats import affected_words, caveats, short_name

Env = dict[str, Any]

MAX_CHANGED = 30
MAX_AFFECTED = 30
MAX_LABEL = 32
# graphviz inches at 96 dpi: 20.5 in -> 1,968 px; a larger drawing is scaled down to it.
SIZE_INCHES = 20.5


@dataclass(slots=True)
class Node:
    """One drawn entity: its locator, role, kind, depth, file and dot/mermaid id."""
    key: str
    role: str  # changed | affected | path (on a drawn path, not itself listed)
    kind: str | None = None
    depth: int = 0
    path: str | None = None
    ident: str = ""


@dataclass(slots=True)
class Picture:
    """What is drawn: the nodes by locator, the edges (``True``: between changed
    entities), and what was cut to fit."""
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[tuple[str, str, str, bool]] = field(default_factory=list)  # + between changed
    cut_changed: int = 0
    cut_affected: int = 0
    files_only: list[str] = field(default_factory=list)  # changed files with nothing inside

    def node(self, key: str, role: str, kind: str | None = None, depth: int = 0,
             path: str | None = None) -> None:
        known = self.nodes.get(key)
        if known is None:
            self.nodes[key] = Node(key, role, kind, depth, path)
        elif role == "changed" or (role == "affected" and known.role == "path"):
            known.role, known.kind, known.depth = role, kind or known.kind, depth
            known.path = path or known.path

    def clusters(self) -> dict[str, list[Node]]:
        """Drawn nodes by file ('' for a node whose file the answer does not name)."""
        out: dict[str, list[Node]] = {}
        for node in self.nodes.values():
            out.setdefault(node.path or "", []).append(node)
        return out


def build(data: Env) -> Picture:
    picture = Picture()
    changed = [seed["entity"] for seed in data.get("changed", [])]
    inner = {e.get("path") for e in changed if e.get("kind") != "file" and e.get("path")}
    code, files = [], []
    for entity in changed:
        key = entity.get("locator") or entity.get("sei")
        if not key:
            continue
        if entity.get("kind") == "file":
            if entity.get("path") not in inner:  # a file is its cluster when it has entities
                files.append(short_name(key))
            continue
        code.append(entity)
    linked = {x for e in data.get("changed_edges", []) for x in (e["from"], e["to"])}
    seeds_with_dependents = {item.get("seed") for item in data.get("affected", [])}
    code.sort(key=lambda e: (e["locator"] not in linked and e["locator"] not in
                             seeds_with_dependents, e.get("path") or "", e["locator"]))
    drawn = code[:MAX_CHANGED]
    picture.cut_changed = len(code) - len(drawn)
    picture.files_only = files
    for entity in drawn:
        picture.node(entity["locator"], "changed", entity.get("kind"), 0, entity.get("path"))
    seen: set[tuple[str, str, str]] = set()
    for edge in data.get("changed_edges", []):
        if edge["from"] in picture.nodes and edge["to"] in picture.nodes:
            triple = (edge["from"], edge["to"], edge["kind"])
            if triple not in seen:
                seen.add(triple)
                picture.edges.append((*triple, True))
    affected = [item for item in data.get("affected", [])
                if item.get("seed") in picture.nodes or not drawn]
    picture.cut_affected = int(data.get("total") or len(data.get("affected", []))) - \
        min(len(affected), MAX_AFFECTED)
    for item in affected[:MAX_AFFECTED]:
        entity = item["entity"]
        key = entity.get("locator") or entity.get("sei")
        if key:
            picture.node(key, "affected", entity.get("kind"), item.get("depth", 0),
                         entity.get("path"))
        for edge in item.get("via_edges", []):
            triple = (edge["from"], edge["to"], edge["kind"])
            picture.node(edge["from"], "path")
            picture.node(edge["to"], "path")
            if triple not in seen:
                seen.add(triple)
                picture.edges.append((*triple, False))
    order = {"changed": 0, "affected": 1, "path": 2}
    ranked = sorted(picture.nodes.values(),
                    key=lambda n: (order[n.role], n.path or "~", n.depth, n.key))
    for index, node in enumerate(ranked):
        node.ident = f"n{index}"
    picture.nodes = {n.key: n for n in ranked}
    picture.edges.sort()
    return picture


def tail(locator: str, limit: int = MAX_LABEL) -> str:
    """The distinctive end of a name: its last two dotted parts (``Session.request``),
    shortened from the left to ``limit`` characters."""
    name = short_name(locator)
    if not locator.startswith("core:file:"):
        name = ".".join(name.split(".")[-2:])
    return name if len(name) <= limit else "…" + name[-(limit - 1):]


def label(node: Node) -> str:
    detail = node.kind or ""
    if node.role == "affected":
        detail += f", depth {node.depth}" if detail else f"depth {node.depth}"
    name = tail(node.key)
    return f"{name}\n{detail}" if detail else name


def title(data: Env) -> str:
    shown = len(data.get("affected", []))
    total = data.get("total")
    affected = f"{total} affected" if not isinstance(total, int) or total == shown else \
        f"{total} affected ({shown} on this page)"
    changed = len(data.get("changed", []))
    noun = "changed entity" if changed == 1 else "changed entities"
    return f"blast radius of {changed} {noun}, {affected} ({data.get('completeness')})"


def notes(data: Env, picture: Picture) -> list[str]:
    """The caption's lines after the title: what the answer is not, and what was cut."""
    out = [n.replace("**", "").replace("`", "") for n in caveats(data, paging=False)]
    words = affected_words(data)
    if words.startswith("affected: unknown") or "unknown for" in words:
        out.append(words)
    cut = []
    if picture.cut_changed:
        cut.append(f"{picture.cut_changed} more changed entities (the least connected)")
    if picture.cut_affected > 0:
        cut.append(f"{picture.cut_affected} more affected entities")
    if picture.files_only:
        shown = ", ".join(picture.files_only[:4]) + (" …" if len(picture.files_only) > 4 else "")
        out.append(f"Also changed, files with no code entity drawn: {shown}")
    if cut:
        out.append("Cut to fit: " + "; ".join(cut) + " not drawn (see --json for all).")
    return out


def grouped(picture: Picture, opening: Callable[[int, str], list[str]],
            node_line: Callable[[Node], str], closing: str) -> list[str]:
    """The nodes file by file, each file's inside its group (a dot cluster, a mermaid
    subgraph); a node whose file is not named stands outside every group."""
    lines: list[str] = []
    for index, (path, members) in enumerate(sorted(picture.clusters().items())):
        indent = "        " if path else "    "
        if path:
            lines += opening(index, path)
        lines += [indent + node_line(node) for node in members]
        if path:
            lines.append(closing)
    return lines


# -- dot ------------------------------------------------------------------------------------

def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_DOT_STYLE = {"changed": 'fillcolor="#fde2e1", color="#c0392b", penwidth=2',
              "affected": 'fillcolor="#fff4d6", color="#b7950b"',
              "path": 'fillcolor="#eeeeee", color="#999999", style="rounded,filled,dashed"'}
_DOT_LEGEND = [
    '        l0 [label="changed", fillcolor="#fde2e1", color="#c0392b", penwidth=2];',
    '        l1 [label="affected: depends on a change", fillcolor="#fff4d6", color="#b7950b"];',
    '        l2 [label="on a path, not listed", fillcolor="#eeeeee", color="#999999", '
    'style="rounded,filled,dashed"];',
    '        l3 [label="changed", fillcolor="#fde2e1", color="#c0392b", penwidth=2];',
    '        l1 -> l0 [label="calls / references\\n(caller -> callee)"];',
    '        l3 -> l0 [label="between changed", color="#c0392b", penwidth=2];',
]


def dot(data: Env, envelope: Env) -> str:
    picture = build(data)
    caption = "\n".join([title(data), *notes(data, picture)])
    warnings = [" ".join(str(w).split()) for w in envelope.get("warnings", [])]
    lines = ["digraph blast_radius {", *(f"    // warning: {w}" for w in warnings),
             f'    graph [rankdir=LR, labelloc=t, labeljust=l, fontname="Helvetica", '
             f'size="{SIZE_INCHES},{SIZE_INCHES}", nodesep=0.2, ranksep=0.6, '
             f'label="{_dot_text(caption)}"];',
             '    node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
             '    edge [fontname="Helvetica", fontsize=9, color="#555555"];',
             '    subgraph cluster_legend {',
             '        label="legend"; fontsize=10; color="#bbbbbb";',
             *_DOT_LEGEND, "    }"]
    lines += grouped(
        picture, lambda index, path: [f"    subgraph cluster_{index} {{",
                                      f'        label="{_dot_text(path)}"; color="#999999"; '
                                      "fontsize=10;"],
        lambda node: f'{node.ident} [label="{_dot_text(label(node))}", '
                     f'tooltip="{_dot_text(node.key)}", {_DOT_STYLE[node.role]}];', "    }")
    for source, target, kind, between in picture.edges:
        style = ', color="#c0392b", penwidth=2' if between else ""
        lines.append(f"    {picture.nodes[source].ident} -> {picture.nodes[target].ident} "
                     f'[label="{_dot_text(kind)}"{style}];')
    lines.append("}")
    return "\n".join(lines)


# -- mermaid --------------------------------------------------------------------------------

def mermaid_text(text: str) -> str:
    out = []
    for char in text:
        if char == "\n":
            out.append("<br/>")
        elif char in '"#<>&':
            out.append(f"#{ord(char)};")
        else:
            out.append(char)
    return "".join(out)


def mermaid(data: Env, envelope: Env) -> str:
    picture = build(data)
    lines = ["---", f'title: "{mermaid_text(title(data))}"', "---", "flowchart LR"]
    said = notes(data, picture)
    said.extend(w for w in envelope.get("warnings", []) if w not in said)
    lines += [f"    %% {mermaid_text(note)}" for note in said]
    lines += ["    %% legend: red = changed, yellow = affected, grey dashed = on a path; "
              "arrows run caller -> callee; thick red arrows join changed entities",
              "    classDef changed fill:#fde2e1,stroke:#c0392b,stroke-width:2px",
              "    classDef affected fill:#fff4d6,stroke:#b7950b",
              "    classDef path fill:#eeeeee,stroke:#999999,stroke-dasharray:3 3"]
    lines += grouped(
        picture, lambda index, path: [f'    subgraph f{index}["{mermaid_text(path)}"]'],
        lambda node: f'{node.ident}["{mermaid_text(label(node))}"]:::{node.role}', "    end")
    for source, target, kind, between in picture.edges:
        arrow = "==>" if between else "-->"
        lines.append(f"    {picture.nodes[source].ident} {arrow}|{kind}| "
                     f"{picture.nodes[target].ident}")
    return "\n".join(lines)
