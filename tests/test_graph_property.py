"""Properties of ``blast_radius`` on generated repositories with known call graphs:

* the affected set is exactly the reverse reachability of the seeds within ``depth`` (an
  independent networkx computation over the calls written into the source), hence
* it is monotonic in depth, and
* every affected entity has a path of real edges back to a seed, of length ``depth``.
"""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.gitfixture import FixtureRepo
from tests.graphfixture import call

MODULE = "python:function:gen.m.f"


def _source(n: int, calls: set[tuple[int, int]]) -> str:
    lines = []
    for i in range(n):
        callees = sorted(j for (a, j) in calls if a == i)
        body = [f"    f{j}()" for j in callees] or ["    pass"]
        lines += [f"def f{i}():", *body, "", ""]
    return "\n".join(lines)


def _expected(n: int, calls: set[tuple[int, int]], seeds: set[int],
              depth: int) -> dict[str, int]:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from((j, i) for i, j in calls)  # callee -> caller: dependents
    found: dict[int, int] = {}
    for seed in seeds:
        for node, hops in nx.single_source_shortest_path_length(graph, seed,
                                                                cutoff=depth).items():
            found[node] = min(found.get(node, hops), hops)
    return {f"{MODULE}{node}": hops for node, hops in found.items() if node not in seeds}


graphs = st.integers(min_value=2, max_value=8).flatmap(lambda n: st.tuples(
    st.just(n),
    st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=n * 3),
    st.sets(st.integers(0, n - 1), min_size=1, max_size=3),
))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(graphs)
def test_impact_is_reverse_reachability_monotonic_in_depth_with_paths_to_seeds(
        case: tuple[int, set[tuple[int, int]], set[int]]) -> None:
    n, calls, seeds = case
    with tempfile.TemporaryDirectory() as tmp:
        repo = FixtureRepo(Path(tmp) / "repo")
        repo.commit({"gen/__init__.py": "", "gen/m.py": _source(n, calls)}, "generated")
        call("capture_snapshot", repo=str(repo.path))
        edges = {(f"{MODULE}{i}", f"{MODULE}{j}") for i, j in calls}
        seed_locators = {f"{MODULE}{s}" for s in seeds}
        previous: set[str] = set()
        for depth in range(6):
            data = call("blast_radius", repo=str(repo.path), depth=depth, limit=1000,
                        changed_refs=sorted(seed_locators))["data"]
            got = {a["entity"]["locator"]: a["depth"] for a in data["affected"]}
            assert got == _expected(n, calls, seeds, depth)
            assert previous <= set(got)
            previous = set(got)
            for affected in data["affected"]:
                path = affected["via_edges"]
                assert len(path) == affected["depth"]
                assert path[0]["to"] == affected["seed"] in seed_locators
                assert path[-1]["from"] == affected["entity"]["locator"]
                for inner, outer in itertools.pairwise(path):
                    assert outer["to"] == inner["from"]
                assert all((e["from"], e["to"]) in edges for e in path)
