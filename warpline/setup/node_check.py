"""``doctor``'s check that loomweave can resolve calls: it needs ``node`` on PATH.

loomweave resolves calls and references with pyright, which runs on node. Installed
without node, ``loomweave analyze`` still succeeds but records no call edges, so a
capture from loomweave alone would answer "nothing affected". warpline completes
loomweave's capture with the built-in extractor's edges; the check says why that
matters and how to get loomweave's own edges back.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from warpline.graph.loomweave_source import _executable, index_path
from warpline.setup._check import Check

NAME = "loomweave_node"


def loomweave_node_check(root: Path) -> Check:
    if _executable(None) is None:
        return Check(NAME, "skipped", False, "loomweave is not installed here")
    node = shutil.which("node")
    if node is None:
        return Check(NAME, "warn", False,
                     "loomweave is installed but `node` is not on PATH: loomweave resolves "
                     "no calls or references (0 edges). Captures complete its graph with the "
                     "built-in extractor's edges; install node, then re-run "
                     "`loomweave analyze`, for loomweave's own edges.",
                     f"install node, then: loomweave analyze {root}")
    indexed = " (this repository is indexed)" if index_path(root).is_file() else ""
    return Check(NAME, "ok", False, f"node at {node}: loomweave can resolve calls{indexed}")
