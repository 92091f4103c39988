"""Edge-source honesty: what a capture's counts mean, said in every answer over it.

A source that left call sites unresolved, or gave no edges at all, does not describe
every dependency; an answer over its snapshot is a floor for what is reached only through
those call sites. The rule for completeness: a ``full`` capture is ``FULL`` only when no
entity failed and it is not an edgeless capture of code whose call sites all went
unresolved (loomweave without ``node``, say); otherwise it is ``DELTA``.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from warpline.graph.model import EdgeCapture

# An edge a source links by name only (the TS/JS extractor: a method call on a value of
# unknown type, to each of the few methods of that name): kept, marked, and said.
CANDIDATE = "candidate"


def completeness_of(capture: EdgeCapture | None, mode: str) -> str:
    if capture is None:
        return "SKIPPED"
    if mode != "full" or capture.failed_entities or edgeless(capture):
        return "DELTA"
    return "FULL"


def edgeless(capture: EdgeCapture) -> bool:
    """No edges although the code has call sites (every one unresolved)."""
    return not capture.edges and capture.unresolved > 0


def shares(capture: EdgeCapture) -> list[dict[str, Any]]:
    """``edge_sources`` on the wire: one entry per contributing source."""
    if capture.origins:
        return [{"source": name, "entities": int(share.get("entities", 0)),
                 "edges": int(share.get("edges", 0)),
                 "unresolved_calls": share.get("unresolved")}
                for name, share in capture.origins.items()]
    return [{"source": capture.source, "entities": len(capture.entities),
             "edges": len(capture.edges), "unresolved_calls": capture.unresolved}]


def meaning(unresolved: int | None, edges: int, completeness: str) -> str:
    if unresolved is None:
        return ("The snapshot predates the unresolved-call count: how many call sites "
                "went unresolved is unknown. Capture again to know.")
    if edges == 0 and unresolved:
        return (f"The snapshot has no edges although {unresolved} call sites exist: "
                "dependents and tests cannot be traced from it at all.")
    if unresolved:
        return (f"{unresolved} call sites could not be resolved to a target (calls through "
                "variables, parameters, callbacks or framework dispatch); no edge was "
                "invented for them, so dependents and tests reached only through them are "
                "missing from this answer.")
    if completeness == "FULL":
        return "Every call site of the snapshot was resolved or is outside the repository."
    return ""


def warning(unresolved: int | None, edges: int) -> str | None:
    """The warning an answer over such a snapshot carries (None when nothing to say)."""
    if unresolved is None or unresolved == 0:
        return None
    return meaning(unresolved, edges, "")


def candidate_edges(graph: nx.DiGraph) -> int:
    """How many of the graph's edges are candidates (counted once per graph)."""
    found = graph.graph.get("candidate_edges")
    if found is None:
        found = sum(1 for _, _, data in graph.edges(data=True)
                    for _, confidence in data.get("links", ()) if confidence == CANDIDATE)
        graph.graph["candidate_edges"] = found
    return int(found)


def candidates_warning(count: int) -> str | None:
    if not count:
        return None
    return (f"{count} edges of the snapshot are candidates (confidence \"candidate\": a "
            "method call on a value of unknown type, linked to each method of that name): "
            "a dependent reached only through one may not depend on the change.")


def basis_for_view(basis: dict[str, Any], edges: int, completeness: str,
                   candidates: int = 0) -> dict[str, Any]:
    unresolved = basis.get("unresolved_calls")
    said = meaning(unresolved, edges, completeness)
    guessed = candidates_warning(candidates)
    return {"unresolved_calls": unresolved, "edge_sources": basis.get("edge_sources", []),
            "meaning": " ".join(part for part in (said, guessed) if part)}
