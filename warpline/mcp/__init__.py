"""warpline's MCP stdio server (``warpline-mcp``, ``python -m warpline.mcp``)."""

from warpline.mcp.server import main

__all__ = ["main"]
