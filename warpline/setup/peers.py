"""The optional peers, as ``doctor`` reports them: loomweave (call edges and SEIs) and
filigree (work items). Neither is required, so neither check ever fails."""

from __future__ import annotations

import shlex
from pathlib import Path

from warpline.federation.filigree import filigree_base_url
from warpline.graph.loomweave_source import index_path, loomweave_available, loomweave_version
from warpline.setup._check import Check

_HEALTH_TIMEOUT_S = 1.5


def loomweave_check(root: Path) -> Check:
    version = loomweave_version()
    if version is None:
        return Check("loomweave", "unavailable", False, "not installed (optional peer: the "
                     "built-in extractor supplies call edges, without SEIs)")
    if not loomweave_available(root):
        return Check("loomweave", "unavailable", False, f"loomweave {version} is installed but "
                     "this repository is not indexed (optional peer)",
                     f"loomweave analyze {shlex.quote(str(root))}")
    return Check("loomweave", "ok", False, f"loomweave {version}, index at {index_path(root)}")


def filigree_check(root: Path) -> Check:
    import httpx

    from warpline.federation._filigree_http import _is_loopback

    base = filigree_base_url(root)
    try:
        # A proxy from the environment must not intercept a loopback dashboard.
        response = httpx.get(f"{base}/api/health", timeout=_HEALTH_TIMEOUT_S,
                             trust_env=not _is_loopback(base))
    except httpx.HTTPError as exc:
        return Check("filigree", "unavailable", False, f"not reachable at {base} (optional peer: "
                     f"work enrichment is reported unavailable): {type(exc).__name__}")
    if response.status_code != 200:
        return Check("filigree", "unavailable", False, f"{base}/api/health answered HTTP "
                     f"{response.status_code} (optional peer)")
    return Check("filigree", "ok", False, f"reachable at {base}")
