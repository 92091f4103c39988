"""warpline: entity-level change history, impact radius and re-verify worklists."""

from warpline._version import __version__

__all__ = ["__version__"]
