"""warpline's pytest plugin: an adapter above the service (entry point ``pytest11:
warpline`` -> ``warpline.pytest_plugin.hooks``), like the CLI and the MCP server. Hooks
only; the work is in ``warpline.runners`` (pytest's row) and the service layer."""
