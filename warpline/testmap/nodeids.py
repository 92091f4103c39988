"""Which strings can be test ids: a map that travelled with git is a claim, and its node ids
end up in a printed command, a ``--selection`` file and ``pytest --warpline-select``.

A pytest node id is ``path[::name...]`` with ``path`` relative to the repository (or the
rootdir). What reaches a command line must never be read as anything else: an option
(``--co``, ``-pno:warpline``), an argument file (``@args``, pytest 8.2+), a path leaving the
repository, or text with control characters or lone surrogates. ``is_test_id`` is the one
check; the wire decoder drops the tests it refuses, the command builder too.
"""

from __future__ import annotations

import re

__all__ = ["MAX_ID", "is_test_id"]

MAX_ID = 4096
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def is_test_id(node_id: object) -> bool:
    """``node_id`` is a string pytest can only read as a test (or test file) id."""
    if not isinstance(node_id, str) or not node_id or len(node_id) > MAX_ID:
        return False
    if node_id[0] in "-@+" or node_id[0].isspace() or _CONTROL.search(node_id):
        return False
    try:
        node_id.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: SQLite and the terminal refuse it
        return False
    path = node_id.split("::", 1)[0]
    if not path or path.startswith(("/", "~")) or ".." in path.replace("\\", "/").split("/"):
        return False
    return True
