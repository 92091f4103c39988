"""warpline's MCP stdio server (``warpline-mcp``, ``python -m warpline.mcp``)."""

from typing import NoReturn

from warpline.mcp.server import main

__all__ = ["main", "run"]


def run() -> NoReturn:
    """The console script and ``python -m warpline.mcp``: ``main``, then the process ends
    without the interpreter's teardown (``warpline.exiting``)."""
    from warpline.exiting import exit_now

    exit_now(main())
