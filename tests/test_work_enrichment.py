"""``warpline.service.admin.work.enrich_work`` against a real filigree dashboard, a dead port and
a server that never answers."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.filigree_server import (
    FiligreeServer,
    filigree_dashboard,
    free_loopback_port,
    hanging_server,
)
from tests.gitfixture import FixtureRepo
from warpline import settings
from warpline.federation.filigree import ENV_VAR
from warpline.models import FiligreeAction, WorkLink
from warpline.service.admin import work
from warpline.service.admin.work import enrich_work
from warpline.service.shared.context import RepoContext, open_context

DEADLINE_S = 0.5
# Scheduling slack on top of the deadline under test; deadline + slack stays under the
# 2 s read timeout, so a pass still says the deadline, not the read timeout, ended the call.
MARGIN_S = 1.25
COMMIT = "main@0123456789abcdef0123456789abcdef01234567"


def sei(name: str) -> str:
    """A loomweave-shaped SEI; warpline and filigree treat it as opaque."""
    return "loomweave:eid:" + hashlib.sha256(name.encode()).hexdigest()[:32]


Point = Callable[[str], None]

CART = sei("python:function:shop.cart.add_item")
TAX = sei("python:function:shop.tax.rate_for")
LONELY = sei("python:function:shop.util.slugify")


@dataclass(frozen=True)
class Tracker:
    server: FiligreeServer
    urgent: str  # P1, open and claimed by alice at COMMIT; linked to CART
    docs: str  # P3, open; linked to CART
    hotfix: str  # P0, closed; linked to TAX
    rounding: str  # P2, open; linked to TAX


@pytest.fixture(scope="module")
def tracker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tracker]:
    with filigree_dashboard(tmp_path_factory.mktemp("filigree") / "repo") as server:
        urgent = server.create_issue("Cart totals drift", priority=1)
        server.claim(urgent, "alice", commit=COMMIT)
        docs = server.create_issue("Document the cart API", priority=3)
        hotfix = server.create_issue("Tax rounding hotfix", priority=0, assignee="bob")
        server.close(hotfix, actor="bob", commit=COMMIT)
        rounding = server.create_issue("Tax rounding follow-up", priority=2)
        server.associate(urgent, CART)
        server.associate(docs, CART)
        server.associate(hotfix, TAX)
        server.associate(rounding, TAX)
        yield Tracker(server, urgent, docs, hotfix, rounding)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[RepoContext]:
    repo = FixtureRepo(tmp_path / "repo")
    repo.commit({"shop/cart.py": "def add_item():\n    return 1\n"})
    with open_context(str(repo.path)) as context:
        yield context


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch) -> Iterator[Point]:
    """Point warpline at a filigree URL through its configuration (never an argument)."""
    def point(url: str) -> None:
        monkeypatch.setenv(ENV_VAR, url)

    monkeypatch.setenv(work.DEADLINE_ENV, str(DEADLINE_S))
    yield point


@pytest.mark.filigree
def test_linked_issues_ride_on_their_items_with_the_most_urgent_open_priority(
        tracker: Tracker, ctx: RepoContext, at: Point) -> None:
    at(tracker.server.base_url)
    result = enrich_work(ctx, [CART, TAX, LONELY, None])

    assert result.state == "present"
    cart, tax, lonely, no_sei = result.links
    assert [link["issue_id"] for link in cart] == [tracker.urgent, tracker.docs]
    urgent = cart[0]
    assert urgent == {"issue_id": tracker.urgent, "title": "Cart totals drift",
                      "status": "open", "status_category": "open", "priority": "P1",
                      "assignee": "alice", "claim_commit": COMMIT, "close_commit": None,
                      "sei": CART}
    assert {link["issue_id"] for link in tax} == {tracker.hotfix, tracker.rounding}
    hotfix = next(link for link in tax if link["issue_id"] == tracker.hotfix)
    assert (hotfix["status_category"], hotfix["close_commit"]) == ("done", COMMIT)
    assert (lonely, no_sei) == ([], [])
    # The closed P0 does not make TAX urgent: its most urgent *open* issue is P2.
    assert result.priorities == ["P1", "P2", "unknown", "unknown"]
    for links in result.links:
        for link in links:
            WorkLink.model_validate(link)


@pytest.mark.filigree
def test_review_actions_propose_each_linked_issue_once_and_file_nothing(
        tracker: Tracker, ctx: RepoContext, at: Point) -> None:
    at(tracker.server.base_url)
    result = enrich_work(ctx, [CART, TAX, CART])

    ids = [action["issue_id"] for action in result.filigree_actions]
    assert sorted(ids) == sorted({tracker.urgent, tracker.docs, tracker.hotfix,
                                  tracker.rounding})
    assert ids[0] == tracker.urgent  # open and most urgent first
    for action in result.filigree_actions:
        FiligreeAction.model_validate(action)
        assert action["action"] == "review_issue"
    assert next(a for a in result.filigree_actions
                if a["issue_id"] == tracker.urgent)["entities"] == [CART]


@pytest.mark.filigree
def test_seis_without_links_are_absent(tracker: Tracker, ctx: RepoContext, at: Point) -> None:
    at(tracker.server.base_url)
    result = enrich_work(ctx, [LONELY, LONELY])

    assert (result.state, result.links, result.priorities) == (
        "absent", [[], []], ["unknown", "unknown"])
    assert (result.filigree_actions, result.warnings) == ([], [])


@pytest.mark.filigree
def test_items_without_an_sei_are_said_to_be_unknown_not_absent(
        tracker: Tracker, ctx: RepoContext, at: Point) -> None:
    at(tracker.server.base_url)
    result = enrich_work(ctx, [LONELY, None, ""])

    assert result.state == "absent"
    assert len(result.warnings) == 1
    assert "2 of 3" in result.warnings[0]


@pytest.mark.filigree
def test_the_port_filigree_publishes_in_the_repository_is_used(
        tracker: Tracker, ctx: RepoContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    port_file = ctx.root / ".weft" / "filigree" / "ephemeral.port"
    port_file.parent.mkdir(parents=True)
    port_file.write_text(tracker.server.base_url.rsplit(":", 1)[1] + "\n")

    assert enrich_work(ctx, [CART]).state == "present"


def test_no_item_with_an_sei_is_unavailable_without_asking_filigree(
        ctx: RepoContext, at: Point, hanging_url: str) -> None:
    at(hanging_url)
    started = time.monotonic()
    result = enrich_work(ctx, [None, None])

    assert time.monotonic() - started < DEADLINE_S  # nothing was sent
    assert (result.state, result.links, result.priorities) == (
        "unavailable", [[], []], ["unknown", "unknown"])
    assert "capture-snapshot" in result.warnings[0]
    assert enrich_work(ctx, []).state == "unavailable"


def test_a_dead_port_is_unavailable_within_the_deadline(ctx: RepoContext, at: Point) -> None:
    at(f"http://127.0.0.1:{free_loopback_port()}")
    started = time.monotonic()
    result = enrich_work(ctx, [CART, None])

    assert time.monotonic() - started < DEADLINE_S + MARGIN_S
    assert (result.state, result.links, result.priorities) == (
        "unavailable", [[], []], ["unknown", "unknown"])
    assert "unreachable" in result.warnings[0]


@pytest.fixture
def hanging_url() -> Iterator[str]:
    with hanging_server() as url:
        yield url


def test_a_hanging_server_is_unavailable_within_the_deadline(
        ctx: RepoContext, at: Point, hanging_url: str) -> None:
    at(hanging_url)
    started = time.monotonic()
    result = enrich_work(ctx, [CART, TAX])

    assert time.monotonic() - started < DEADLINE_S + MARGIN_S
    assert result.state == "unavailable"
    assert result.priorities == ["unknown", "unknown"]
    assert "timeout" in result.warnings[0]


def test_an_unexpected_failure_is_unavailable_never_an_exception(
        ctx: RepoContext, at: Point, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(work, "fetch_work", broken)
    result = enrich_work(ctx, [CART])

    assert (result.state, result.links) == ("unavailable", [[]])
    assert "RuntimeError" in result.warnings[0]


def test_the_deadline_comes_from_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(work.DEADLINE_ENV, "1.5")
    assert settings.filigree_deadline_s() == 1.5
    monkeypatch.setenv(work.DEADLINE_ENV, "soon")
    assert settings.filigree_deadline_s() == work.DEFAULT_DEADLINE_S
    monkeypatch.delenv(work.DEADLINE_ENV)
    assert settings.filigree_deadline_s() == work.DEFAULT_DEADLINE_S
