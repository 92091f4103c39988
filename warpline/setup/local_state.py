"""Git's ignore rules for ``.weft/`` and warpline's ``.weft/warpline/config.json``.

Ignore rules go to ``<common dir>/info/exclude``, not ``.gitignore``: the exclude file is
local to this clone (shared by all its worktrees), so installing never leaves a change in
the user's tree that they would have to commit or revert, and it never edits a file the
team owns. ``/.weft/`` is the weft tools' runtime state (warpline's store, loomweave's
index, filigree's port file); nothing under it is meant to be committed. When the
repository's own rules already ignore ``.weft/``, nothing is written.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from warpline._version import __version__
from warpline.errors import StoreUnsafe
from warpline.git import command as gitcmd
from warpline.setup._files import Action, ensure_file, write_atomic
from warpline.store import guard

CONFIG_RELPATH = guard.STATE_RELPATH / "config.json"
CONFIG_SCHEMA = "warpline.config.v1"
IGNORE_PATTERN = "/.weft/"
_IGNORE_BLOCK = f"# weft tools' runtime state (added by `warpline install`)\n{IGNORE_PATTERN}\n"
# The same rule Store.open writes: the store directory ignores itself, even without git's.
_STORE_GITIGNORE = "# warpline runtime state: never committed\n*\n"


def config_path(root: Path) -> Path:
    """``.weft/warpline/config.json``, or the git directory's copy when git tracks the
    state directory (a committed config is not this clone's: ``guard.state_dir``)."""
    return guard.state_dir(root) / "config.json"


def ensure_ignored(root: Path, common: Path) -> Action:
    exclude = common / "info" / "exclude"
    source = _ignored_by(root)
    if source is not None:
        return Action("ignore", str(exclude), "unchanged", f".weft/ is ignored ({source})")
    text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    if IGNORE_PATTERN in text.splitlines():
        # Ours already, yet .weft/ is not ignored: a rule of higher precedence (a
        # `!.weft/` in a .gitignore) re-includes it. That is the team's call, not ours.
        return Action("ignore", str(exclude), "unchanged", f"{IGNORE_PATTERN} is in the "
                      "exclude file, but a .gitignore rule re-includes .weft/")
    if text and not text.endswith("\n"):
        text += "\n"
    write_atomic(exclude, (text + _IGNORE_BLOCK).encode())
    return Action("ignore", str(exclude), "updated" if text else "created",
                  f"added {IGNORE_PATTERN}")


def _ignored_by(root: Path) -> str | None:
    """Which rule ignores ``.weft/`` already (``file:line:pattern``), if any."""
    git = shutil.which("git")
    if git is None:
        return None
    done = gitcmd.run(root, ["check-ignore", "-v", "--no-index", ".weft/"], timeout=30)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    rule = done.stdout.split("\t", 1)[0]
    found = re.match(r"^(.*?):(\d+):(.*)$", rule)
    return None if found is None or found.group(3).startswith("!") else rule


def read_config(root: Path) -> dict[str, Any] | None:
    """warpline's own record of what it installed here; None when absent, unreadable,
    or reached through a symbolic link."""
    try:
        if guard.check_state(root, create=False) is None:
            return None
        data = json.loads(config_path(root).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, StoreUnsafe):
        return None
    return data if isinstance(data, dict) else None


def write_config(root: Path, components: list[str], settings: dict[str, Any]) -> list[Action]:
    """Record what install set up; keys a person added survive. No timestamps: a second
    install must leave the bytes as they are."""
    guard.check_state(root, create=True)
    path = config_path(root)
    current = read_config(root) or {}
    previous = current.get("components")
    known = set(previous) if isinstance(previous, list) else set()
    config = {**current, "schema": CONFIG_SCHEMA, "installed_by": f"warpline {__version__}",
              "components": sorted(known | set(components)), **settings}
    result = ensure_file(path, (json.dumps(config, indent=2, sort_keys=True) + "\n").encode())
    actions = [Action("config", str(path), result)]
    ignore = path.parent / ".gitignore"
    if guard.create_exclusive(ignore, _STORE_GITIGNORE.encode()):
        actions.append(Action("config", str(ignore), "created"))
    return actions


def common_dir(gitdir: str | Path) -> Path:
    """The common git directory of a (possibly linked) worktree's git directory."""
    path = Path(gitdir)
    try:
        pointer = (path / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return path.resolve()
    return (path / pointer).resolve()


def installed_config(root: Path, gitdir: str | Path) -> dict[str, Any] | None:
    """The config of ``root``, or of the main worktree when ``root`` is a linked worktree
    of a repository warpline was installed in (``gitdir``: pygit2's ``Repository.path``)."""
    found = read_config(root)
    if found is not None:
        return found
    common = common_dir(gitdir)
    main = common.parent if common.name == ".git" else None
    return read_config(main) if main is not None and main != root else None
