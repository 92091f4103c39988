"""The CLI's default for range commands: "my work" when neither a range nor entities are
given (see ``warpline.service.shared.mywork``). The note goes to stderr, so ``--json``
stays clean."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def default_to_my_work(args: argparse.Namespace, out: dict[str, Any],
                       *seed_keys: str) -> None:
    """Fill ``rev_range``/``include_worktree`` in ``out`` unless the user named a scope."""
    if getattr(args, "all", False) or any(
            key in out for key in ("rev_range", "base_ref", "head_ref", *seed_keys)):
        return
    from warpline.errors import InvalidRepo
    from warpline.service.shared.mywork import WORKTREE_ONLY, my_work

    try:
        work = my_work(out.get("repo", args.repo), Path.cwd())
    except InvalidRepo:
        # The tool opens the same repository and fails the same way (invalid_repo), but
        # after checking its arguments: a bad flag is named first, as over MCP.
        out["rev_range"], out["include_worktree"] = WORKTREE_ONLY, True
        return
    out["rev_range"] = work.rev_range
    out["include_worktree"] = work.include_worktree
    print(f"warpline: {work.note}", file=sys.stderr)
