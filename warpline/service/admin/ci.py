"""``warpline ci``: the pull-request range from the CI environment, notes in, records out.

Detection (``--base`` always wins):

* GitHub Actions (``GITHUB_ACTIONS=true``): a pull request has ``GITHUB_BASE_REF`` (the
  target branch name); the head is ``GITHUB_SHA`` (for a pull request, the merge commit
  ``actions/checkout`` checks out). A push has no base ref; its event payload
  (``GITHUB_EVENT_PATH``) names the commit before the push (``before``).
  ``--record`` records a pull request's own head (``pull_request.head.sha`` in the event
  payload), not the runner's merge commit.
* GitLab CI (``GITLAB_CI=true``): a merge-request pipeline has
  ``CI_MERGE_REQUEST_DIFF_BASE_SHA`` (else ``CI_MERGE_REQUEST_TARGET_BRANCH_NAME``); the head
  is ``CI_COMMIT_SHA``; a push pipeline has ``CI_COMMIT_BEFORE_SHA``.

A base that is a branch name is looked up as ``origin/<name>``, then ``<name>``. The range
is ``merge-base(base, head)..head``: what the pull request adds, as the forge shows it.
The environment is read, never executed; the values only ever become revisions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pygit2

from warpline import settings
from warpline.errors import InvalidArgument, InvalidRevRange
from warpline.git.repo import resolve_commit

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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _github(env: Mapping[str, str]) -> tuple[str | None, str | None, str | None, str | None]:
    event = env.get("GITHUB_EVENT_NAME") or None
    head = env.get("GITHUB_SHA") or None
    actor = f"github-actions:{env['GITHUB_RUN_ID']}" if env.get("GITHUB_RUN_ID") else \
        "github-actions"
    base = env.get("GITHUB_BASE_REF") or None
    if base is None and env.get("GITHUB_EVENT_PATH"):
        base = _event_before(Path(env["GITHUB_EVENT_PATH"]))
    return base, head, event, actor


def _event(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            payload = json.loads(handle.read(_MAX_EVENT_BYTES))
    except (OSError, ValueError):
        return {}
    return payload if isinstance(payload, dict) else {}


def _event_before(path: Path) -> str | None:
    before = _event(path).get("before")
    return before if isinstance(before, str) and before.strip("0") else None


def _pull_request_head(env: Mapping[str, str]) -> str | None:
    """A pull request's own head commit: ``GITHUB_SHA`` is a merge commit that exists only
    on the runner, so a record there would never reach a developer's clone."""
    if not env.get("GITHUB_EVENT_PATH"):
        return None
    pull = _event(Path(env["GITHUB_EVENT_PATH"])).get("pull_request")
    head = pull.get("head") if isinstance(pull, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    return sha if isinstance(sha, str) and sha else None


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


def _resolve_base(repo: pygit2.Repository, base: str, field: str) -> pygit2.Commit:
    for candidate in (f"origin/{base}", base):
        try:
            return resolve_commit(repo, candidate, field=field)
        except InvalidRevRange:
            continue
    return resolve_commit(repo, base, field=field)  # the error names the cause


def detect(repo: pygit2.Repository, env: Mapping[str, str] | None = None, *,
           base: str | None = None, head: str | None = None) -> CiRange:
    """The range this CI job should report on."""
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
    head_commit = resolve_commit(repo, head_ref, field="head")
    base_commit = _resolve_base(repo, base_ref, "base")
    merge_base = repo.merge_base(base_commit.id, head_commit.id)
    if merge_base is None:
        raise InvalidRevRange(
            f"{base_ref!r} and {head_ref!r} share no history here (in a shallow clone, the "
            "merge base may not have been fetched: use `fetch-depth: 0`, or `git fetch "
            "--deepen=N`).", field="base", value=base_ref,
            details={"shallow": repo.is_shallow})
    base_sha, head_sha = str(merge_base), str(head_commit.id)
    return CiRange(kind, event, base_ref, head_ref, base_sha, head_sha,
                   f"{base_sha}..{head_sha}", actor)


def record_target(repo: pygit2.Repository, env: Mapping[str, str] | None = None, *,
                  head: str | None = None) -> tuple[str, str | None]:
    """The commit a ``--record`` step records (the job's head), and the default actor."""
    env = settings.ci_environment() if env is None else env
    kind = provider(env)
    found_head, actor = None, None
    if kind == "github":
        _, found_head, _, actor = _github(env)
        found_head = _pull_request_head(env) or found_head
    elif kind == "gitlab":
        _, found_head, _, actor = _gitlab(env)
    commit = resolve_commit(repo, head or found_head or "HEAD", field="head")
    return str(commit.id), actor
