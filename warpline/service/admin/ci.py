"""``warpline ci``: the pull-request range from the CI environment, notes in, records out.

Detection (``--base`` always wins):

* GitHub Actions (``GITHUB_ACTIONS=true``): a pull request's base is the event payload's
  ``pull_request.base.sha`` (``GITHUB_EVENT_PATH``), else ``GITHUB_BASE_REF`` (the target
  branch name, which ``actions/checkout`` does not fetch); the head is ``GITHUB_SHA`` (for a
  pull request, the merge commit ``actions/checkout`` checks out). A push has no base ref;
  its event payload names the commit before the push (``before``).
  ``--record`` records a pull request's own head (``pull_request.head.sha`` in the event
  payload), not the runner's merge commit.
* GitLab CI (``GITLAB_CI=true``): a merge-request pipeline has
  ``CI_MERGE_REQUEST_DIFF_BASE_SHA`` (else ``CI_MERGE_REQUEST_TARGET_BRANCH_NAME``); the head
  is ``CI_COMMIT_SHA``; a push pipeline has ``CI_COMMIT_BEFORE_SHA``.

A base that is a branch name is looked up as ``origin/<name>``, then ``<name>``. The range
is ``merge-base(base, head)..head``: what the pull request adds, as the forge shows it.
What the clone lacks (the base, the history down to the merge base) is fetched from the
remote (``ci_fetch``). The environment is read, never executed; the values only ever become
revisions (a commit id, or a valid branch name).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pygit2

from warpline import settings
from warpline.errors import InvalidArgument, InvalidRevRange, WarplineError
from warpline.git.repo import resolve_commit
from warpline.service.admin.ci_fetch import Fetching, ensure_range, is_sha
from warpline.service.admin.ci_fetch import commit as fetched_commit

_NULL_SHA = "0" * 40
_MAX_EVENT_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class CiRange:
    """The revision range a CI run verifies, as the provider named it and as resolved."""
    provider: str  # github | gitlab | local
    event: str | None
    base_ref: str  # as found (a branch name, a sha)
    head_ref: str
    base_sha: str  # the merge base
    head_sha: str
    rev_range: str
    actor: str | None
    fetched: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _github(env: Mapping[str, str]) -> tuple[str | None, str | None, str | None, str | None]:
    event = env.get("GITHUB_EVENT_NAME") or None
    head = env.get("GITHUB_SHA") or None
    actor = f"github-actions:{env['GITHUB_RUN_ID']}" if env.get("GITHUB_RUN_ID") else \
        "github-actions"
    payload = _event(Path(env["GITHUB_EVENT_PATH"])) if env.get("GITHUB_EVENT_PATH") else {}
    base = _pull_request_sha(payload, "base") or env.get("GITHUB_BASE_REF") or None
    if base is None:
        before = payload.get("before")
        base = before if isinstance(before, str) and before.strip("0") else None
    return base, head, event, actor


def _event(path: Path) -> dict[str, Any]:
    """The event payload; ``{}`` for anything but a regular file's JSON object within the
    cap (a FIFO is not waited on, a deeply nested document is no event)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return {}
            payload = json.loads(handle.read(_MAX_EVENT_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return payload if isinstance(payload, dict) else {}


def _pull_request_sha(payload: dict[str, Any], side: str) -> str | None:
    """``pull_request.<side>.sha`` of an event payload, when it is a commit id."""
    pull = payload.get("pull_request")
    end = pull.get(side) if isinstance(pull, dict) else None
    sha = end.get("sha") if isinstance(end, dict) else None
    return sha if isinstance(sha, str) and is_sha(sha) else None


def _pull_request_head(env: Mapping[str, str]) -> str | None:
    """A pull request's own head commit: ``GITHUB_SHA`` is a merge commit that exists only
    on the runner, so a record there would never reach a developer's clone."""
    if not env.get("GITHUB_EVENT_PATH"):
        return None
    return _pull_request_sha(_event(Path(env["GITHUB_EVENT_PATH"])), "head")


def _gitlab(env: Mapping[str, str]) -> tuple[str | None, str | None, str | None, str | None]:
    event = env.get("CI_PIPELINE_SOURCE") or None
    head = env.get("CI_COMMIT_SHA") or None
    actor = f"gitlab-ci:{env['CI_JOB_ID']}" if env.get("CI_JOB_ID") else "gitlab-ci"
    base = (env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA")
            or env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME") or None)
    if base is None:
        before = env.get("CI_COMMIT_BEFORE_SHA") or ""
        base = before if before and before != _NULL_SHA else None
    return base, head, event, actor


def provider(env: Mapping[str, str]) -> str:
    if env.get("GITHUB_ACTIONS") == "true":
        return "github"
    if env.get("GITLAB_CI") == "true":
        return "gitlab"
    return "local"


def _commit(state: Fetching, ref: str, field: str, branch_ok: bool, *,
            depth: int | None = None, along: tuple[str, ...] = ()) -> pygit2.Commit:
    found = fetched_commit(state, ref, branch_ok, depth=depth, along=along)
    if found is not None:
        return found
    try:  # the usual error: names the cause
        return resolve_commit(state.repo, ref, field=field)
    except InvalidRevRange as exc:
        if state.failures:
            exc.details["fetch"] = list(state.failures)
        raise


def detect(repo: pygit2.Repository, env: Mapping[str, str] | None = None, *,
           base: str | None = None, head: str | None = None, remote: str | None = None,
           fetch: bool = True) -> CiRange:
    """The range this CI job should report on; what the clone lacks is fetched from
    ``remote`` (default ``origin``) unless ``fetch`` is False."""
    env = settings.ci_environment() if env is None else env
    kind = provider(env)
    found_base, found_head, event, actor = (None, None, None, None)
    if kind == "github":
        found_base, found_head, event, actor = _github(env)
    elif kind == "gitlab":
        found_base, found_head, event, actor = _gitlab(env)
    base_ref = base or found_base
    head_ref = head or found_head or "HEAD"
    if not base_ref:
        raise InvalidArgument(
            f"no pull-request base found in the {kind} environment; pass `--base REF` "
            "(e.g. --base origin/main), or run in a pull/merge-request pipeline.",
            field="base", details={"provider": kind})
    state = Fetching(repo, remote or "origin", allowed=fetch)
    head_commit = _commit(state, head_ref, "head", branch_ok=False)
    base_commit = _commit(state, base_ref, "base", branch_ok=True,
                          along=(str(head_commit.id),))
    merge_base = ensure_range(state, base_commit, head_commit, base_ref, head_ref)
    base_sha, head_sha = str(merge_base), str(head_commit.id)
    return CiRange(kind, event, base_ref, head_ref, base_sha, head_sha,
                   f"{base_sha}..{head_sha}", actor, tuple(state.fetched))


def record_target(repo: pygit2.Repository, env: Mapping[str, str] | None = None, *,
                  head: str | None = None, remote: str | None = None,
                  fetch: bool = True) -> tuple[str, str | None]:
    """The commit a ``--record`` step records (the job's head), and the default actor. A
    pull request's head is fetched (one commit) when the clone lacks it: at
    ``fetch-depth: 1`` only the merge commit is there."""
    env = settings.ci_environment() if env is None else env
    kind = provider(env)
    found_head, actor = None, None
    if kind == "github":
        _, found_head, _, actor = _github(env)
        found_head = _pull_request_head(env) or found_head
    elif kind == "gitlab":
        _, found_head, _, actor = _gitlab(env)
    state = Fetching(repo, remote or "origin", allowed=fetch)
    commit = _commit(state, head or found_head or "HEAD", "head", branch_ok=False, depth=1)
    return str(commit.id), actor


def ci_rev_range(root: Path, repo: pygit2.Repository) -> tuple[str | None, str]:
    """The range ``pytest --warpline-select`` uses by default in a CI job: ``warpline ci``'s
    (the same resolver). ``(None, "")`` outside CI (use the local default);
    ``(None, why)`` when the job's range cannot be found; else ``(range, words)``."""
    env = settings.ci_environment()
    if provider(env) == "local":
        return None, ""
    try:
        found = detect(repo, env)
    except WarplineError as exc:
        return None, f"the {provider(env)} job's range was not found: {exc.code}: {exc.hint}"
    return found.rev_range, (f"the {found.provider} job's range {found.base_ref}..."
                             f"{found.head_ref} ({found.base_sha[:10]}..{found.head_sha[:10]})")
