"""``warpline doctor``: does warpline actually work in this repository?

Each check exercises the thing, not just the file: the hooks' executable is run
(``--version``), ``warpline-mcp`` is spawned and asked ``initialize`` + ``tools/list``, the
store is opened read-only and its schema compared with what this build serves. loomweave and
filigree are optional peers: they are reported, never fail the verdict. ``--fix`` repairs
what it can (hooks and the MCP entry through install, a corrupt store moved aside, a
backfill) and checks again.

Doctor runs only what warpline put there itself: the command recorded in its own
``config.json`` (never a committed one, see ``warpline.store.guard``) or this
installation's entry point. A ``.mcp.json`` or hook naming anything else is reported as
foreign and never executed: a cloned repository's files are data, not commands.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pygit2

from warpline.errors import StoreUnsafe
from warpline.service.shared.context import open_repo_only
from warpline.setup import hooks, ingest_log, mcp_config, peers, trust
from warpline.setup._check import Check
from warpline.setup._files import Action
from warpline.setup._probe import probe as probe_store
from warpline.setup.executables import command_for
from warpline.setup.install import install, run_backfill
from warpline.setup.local_state import read_config
from warpline.setup.node_check import loomweave_node_check
from warpline.store import health
from warpline.store.db import store_path
from warpline.store.migrations import SCHEMA_VERSION
from warpline.store.probe import StoreProbe

_HANDSHAKE_TIMEOUT_S = 30.0


@dataclass(slots=True)
class DoctorReport:
    """The checks `warpline doctor` ran and what it fixed."""
    repo: Path
    checks: list[Check] = field(default_factory=list)
    fixed: list[Action] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(c.required and c.status == "fail" for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {"repo": str(self.repo), "ok": self.ok,
                "checks": [c.to_dict() for c in self.checks],
                "fixed": [a.to_dict() for a in self.fixed]}


def run_doctor(repo: str, cwd: Path | None = None, *, fix: bool = False) -> DoctorReport:
    root, handle = open_repo_only(repo, cwd)
    report = DoctorReport(root, _checks(root, handle))
    if fix and any(c.repair and c.status in ("fail", "warn") for c in report.checks):
        report.fixed = _repair(root, report.checks)
        report.checks = _checks(root, handle)
    return report


def _checks(root: Path, handle: pygit2.Repository) -> list[Check]:
    config = read_config(root)
    installed = set(config.get("components", [])) if config else {"hooks", "mcp"}
    probe, _ = probe_store(root, handle)
    return [
        _hooks(root, _trusted(config, "hooks", "warpline"))
        if "hooks" in installed else _not_installed("hooks", "--hooks"),
        _mcp(root, _trusted(config, "mcp", "warpline-mcp"))
        if "mcp" in installed else _not_installed("mcp", "--mcp"),
        _store(root, probe),
        _behind(root, probe),
        _reach(root, probe, handle),
        _shallow(handle),
        _failures(root, probe),
        peers.loomweave_check(root),
        loomweave_node_check(root),
        peers.filigree_check(root),
    ]


def _trusted(config: dict[str, Any] | None, component: str, script: str) -> list[list[str]]:
    """Commands doctor may execute for ``component``: this installation's own entry point
    and the one warpline recorded in its own config when it installed the component."""
    own = [command_for(script)]
    section = config.get(component) if config else None
    recorded = section.get("command") if isinstance(section, dict) else None
    if isinstance(recorded, list) and recorded and all(isinstance(a, str) for a in recorded):
        own.append(list(recorded))
    return own


def _is_trusted(command: list[str], trusted: list[list[str]], root: Path) -> list[str] | None:
    """The absolute command to run when ``command`` is ours where it runs (the repository
    is its working directory), else None: see ``warpline.setup.trust``."""
    return trust.trusted_command(command, trusted, root)


def _foreign(name: Literal["hooks", "mcp"], command: list[str], where: str, root: Path) -> Check:
    return Check(name, "fail", True, f"{where} names {shlex.join(command)}, which warpline "
                 "did not install (not in its config, not this warpline's entry point); "
                 "doctor never runs a foreign command", _install_fix(root), name)
def _shallow(handle: pygit2.Repository) -> Check:
    from warpline.git.shallow import SHALLOW_FIX, boundary

    edge = boundary(handle)
    if not edge:
        return Check("history", "ok", False, "complete clone (not shallow)")
    return Check("history", "warn", False,
                 f"shallow clone with {len(edge)} boundary commit(s): answers are partial",
                 SHALLOW_FIX)


def _not_installed(name: str, flag: str) -> Check:
    return Check(name, "skipped", False, f"not installed here (`warpline install {flag}` adds "
                 "it)")


def _install_fix(root: Path) -> str:
    return f"warpline doctor --fix --repo {shlex.quote(str(root))}"


def _hooks(root: Path, trusted: list[list[str]]) -> Check:
    paths = hooks.git_paths(root)
    try:
        hooks.check_writable(root, paths)
    except StoreUnsafe as exc:
        return Check("hooks", "fail", True, exc.hint)
    states = [hooks.inspect_hook(paths.hooks_dir, name) for name in hooks.HOOK_NAMES]
    broken = [s for s in states if not s.healthy]
    if broken:
        return Check("hooks", "fail", True, "; ".join(_hook_problem(s) for s in broken),
                     _install_fix(root), "hooks")
    commands = {tuple(s.command) for s in states}
    runnable = {c: _is_trusted(list(c), trusted, root) for c in commands}
    foreign = [list(c) for c, run in runnable.items() if run is None]
    if foreign:
        return _foreign("hooks", foreign[0], f"the hooks in {paths.hooks_dir}", root)
    versions = [_version(run, root) for run in runnable.values() if run is not None]
    bad = [v for v in versions if not v.startswith("warpline")]
    if bad:
        return Check("hooks", "fail", True, f"the hooks' executable does not run: {bad[0]}",
                     _install_fix(root), "hooks")
    chained = [s.name for s in states if s.chained]
    return Check("hooks", "ok", True,
                 f"{', '.join(s.name for s in states)} in {paths.hooks_dir}, calling "
                 f"{states[0].command[0]} ({', '.join(sorted(set(versions)))})"
                 + (f"; chaining the earlier {', '.join(chained)}" if chained else ""))


def _hook_problem(state: hooks.HookState) -> str:
    if not state.present:
        return f"{state.name} is missing ({state.path})"
    if not state.ours:
        return f"{state.name} belongs to another tool ({state.path})"
    if not state.executable:
        return f"{state.name} is not executable, so git skips it"
    return f"{state.name} calls {state.command[0] if state.command else '?'}, which is missing"


def _version(command: list[str], root: Path) -> str:
    try:
        done = subprocess.run([*command, "--version"], capture_output=True, text=True,
                              timeout=60, check=False, cwd=root, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{command[0]}: {exc}"
    text = (done.stdout or done.stderr).strip()
    return text if done.returncode == 0 else f"{command[0]} exited {done.returncode}: {text}"


def _mcp(root: Path, trusted: list[list[str]]) -> Check:
    from warpline.mcp.client import McpProcess, initialize

    command = mcp_config.registered_command(root)
    if command is None:
        return Check("mcp", "fail", True, f"no `{mcp_config.SERVER_NAME}` server in "
                     f"{root / mcp_config.MCP_FILE}", _install_fix(root), "mcp")
    runnable = _is_trusted(command, trusted, root)
    if runnable is None:
        return _foreign("mcp", command, f"{mcp_config.MCP_FILE}'s `{mcp_config.SERVER_NAME}` "
                        "server", root)
    started = time.perf_counter()
    try:
        with McpProcess(runnable, cwd=root, timeout=_HANDSHAKE_TIMEOUT_S) as server:
            reply = initialize(server).get("result", {})
            tools = server.request("tools/list").get("result", {}).get("tools", [])
    except (OSError, TimeoutError, EOFError, ValueError) as exc:
        return Check("mcp", "fail", True, f"{shlex.join(command)} does not answer a handshake: "
                     f"{type(exc).__name__}: {exc}", _install_fix(root), "mcp")
    name = reply.get("serverInfo", {}).get("name")
    if name != "warpline" or not tools:
        return Check("mcp", "fail", True, f"{command[0]} answered as {name!r} with "
                     f"{len(tools)} tools", _install_fix(root), "mcp")
    return Check("mcp", "ok", True, f"{command[0]} answers: {len(tools)} tool names, protocol "
                 f"{reply.get('protocolVersion')}, "
                 f"{(time.perf_counter() - started) * 1000:.0f} ms")


def _store(root: Path, probe: StoreProbe) -> Check:
    backfill = f"warpline backfill --repo {shlex.quote(str(root))}"
    if probe.status == "store_absent":
        return Check("store", "fail", True, f"no store at {probe.path}", backfill, "backfill")
    if probe.status == "schema_ahead":
        return Check("store", "fail", True, f"schema {probe.schema_version} was written by a "
                     f"newer warpline; this build serves up to {SCHEMA_VERSION}",
                     "pip install -U warpline")
    if probe.status != "ok":
        return Check("store", "fail", True, f"{probe.path} cannot be read ({probe.reason})",
                     _install_fix(root) + "  (moves it aside and rebuilds it from git)", "store")
    damage = health.damage(probe.path)
    if damage is not None:
        return Check("store", "fail", True, f"{probe.path} is damaged (SQLite quick_check: "
                     f"{damage})", _install_fix(root) + "  (moves it aside and rebuilds it "
                     "from git)", "store")
    version = probe.schema_version
    note = "" if version == SCHEMA_VERSION else f", migrates to {SCHEMA_VERSION} on next write"
    return Check("store", "ok", True, f"schema {version}{note}; {probe.change_event_count} "
                 "change events")


def _behind(root: Path, probe: StoreProbe) -> Check:
    if probe.status != "ok" or probe.commits_behind_head is None:
        return Check("behind", "skipped", False, "unknown until the store can be read")
    behind = probe.commits_behind_head
    if behind == 0:
        return Check("behind", "ok", False, "up to date with HEAD")
    count = f"at least {behind}" if probe.behind_is_lower_bound else str(behind)
    return Check("behind", "warn", False, f"{count} commits behind HEAD (the hooks or the next "
                 "read catch up)", f"warpline backfill --repo {shlex.quote(str(root))}",
                 "backfill")


def _reach(root: Path, probe: StoreProbe, handle: pygit2.Repository) -> Check:
    """Stored commits flagged against the history (a deepened clone's store written before
    issue 38): answers would drop them while saying they are complete."""
    if probe.status != "ok":
        return Check("reach", "skipped", False, "unknown until the store can be read")
    from warpline.git.walks import reached_from_head

    reached = reached_from_head(handle)
    wrong = None if reached is None else health.misplaced(probe.path, reached)
    if wrong is None:
        return Check("reach", "skipped", False, "the history or the store could not be read")
    if not wrong:
        return Check("reach", "ok", True, "every stored commit is placed in HEAD's history")
    return Check("reach", "fail", True, f"{wrong} stored commit(s) are flagged against "
                 "HEAD's history (answers would leave them out)",
                 _install_fix(root) + "  (recomputes the flags and lineages)", "reach")


def _failures(root: Path, probe: StoreProbe) -> Check:
    unresolved = health.unresolved_failures(probe.path) if probe.status == "ok" else []
    records = ingest_log.recent(root)
    last = records[-1] if records else None
    fix = _install_fix(root) + "  (retries the ingest)"
    if unresolved:
        sha, error = unresolved[0]
        # Recorded as failed and skipped by every run: only an explicit retry reads them.
        retry = f"warpline backfill --retry-failed --repo {shlex.quote(str(root))}"
        return Check("ingest", "fail", True, f"{len(unresolved)} commit(s) could not be "
                     f"ingested; latest {sha[:12]}: {error}", retry)
    if last is not None and not last.get("ok"):
        return Check("ingest", "fail", True, f"the last unattended ingest ({last.get('hook')}, "
                     f"{last.get('at')}) failed: {last.get('error')}", fix, "backfill")
    if last is None:
        return Check("ingest", "ok", True, "no unattended ingest has run yet")
    failed = sum(1 for r in records if not r.get("ok"))
    return Check("ingest", "ok", True, f"last unattended ingest ({last.get('hook')}) at "
                 f"{last.get('at')} succeeded" + (f"; {failed} earlier failure(s) since "
                                                  "resolved" if failed else ""))


def _repair(root: Path, checks: list[Check]) -> list[Action]:
    needed = {c.repair for c in checks if c.repair and c.status in ("fail", "warn")}
    actions: list[Action] = []
    components = [name for name in ("hooks", "mcp") if name in needed]
    if components:
        try:
            # --fix repairs our entry even in a tracked .mcp.json: asked for, and reported.
            actions.extend(install(str(root), components=components, backfill=False,
                                   shared_mcp=True).actions)
        except StoreUnsafe as exc:
            actions.append(Action(",".join(components), str(root), "failed", exc.hint))
    if "store" in needed:
        actions.append(_move_aside(store_path(root)))
        needed.add("backfill")
    if "reach" in needed and "store" not in needed:
        actions.append(_recompute_reach(root))
        needed.add("backfill")
    if "backfill" in needed:
        actions.append(run_backfill(root, source="doctor --fix"))
    return actions


def _recompute_reach(root: Path) -> Action:
    from warpline.store.db import Store
    from warpline.store.reach import forget

    with Store.open(root) as store:
        forget(store)
    return Action("reach", str(store_path(root)), "updated",
                  "reachability flags and lineages recomputed by the backfill below")


def _move_aside(path: Path) -> Action:
    """A store that cannot be read is rebuilt from git; keep the old bytes for a post-mortem."""
    suffix = f".broken-{int(time.time())}"
    moved: list[str] = []
    for sidecar in ("", "-wal", "-shm"):
        source = path.with_name(path.name + sidecar)
        if source.exists():
            source.rename(source.with_name(source.name + suffix))
            moved.append(source.name)
    return Action("store", str(path), "updated", f"moved {', '.join(moved)} aside ({suffix})")

