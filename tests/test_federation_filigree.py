"""The filigree work-enrichment client, against a real filigree dashboard.

Failure modes that a real dashboard cannot be made to show (hanging, garbage, a 500, an
orphaned binding) use a tiny loopback server in a thread.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from tests.filigree_server import (
    FiligreeServer,
    filigree_dashboard,
    free_loopback_port,
    hanging_server,
)
from warpline.federation import _filigree_http
from warpline.federation.filigree import (
    DEFAULT_BASE_URL,
    ENV_VAR,
    WorkItem,
    WorkLookup,
    fetch_work,
    filigree_base_url,
    most_urgent_priority,
    review_actions,
)

DEADLINE_S = 0.5
# Scheduling slack on top of the deadline: the bound under test is the deadline itself.
MARGIN_S = 2.0
# A limit far enough from the one a test exercises that which of the two ended a call is
# never in doubt, however loaded the machine.
FAR_S = 30.0
COMMIT = "main@0123456789abcdef0123456789abcdef01234567"


def sei(locator: str) -> str:
    """A loomweave-shaped SEI (`loomweave:eid:<hex>`). The client treats it as opaque."""
    return "loomweave:eid:" + hashlib.sha256(locator.encode()).hexdigest()[:32]


SEI_CART = sei("python:function:shop.cart.add_item")
SEI_TAX = sei("python:function:shop.tax.rate_for")
SEI_LONELY = sei("python:function:shop.util.slugify")


@dataclass(frozen=True)
class Seeded:
    server: FiligreeServer
    parser: str  # P1, claimed by alice at COMMIT, in progress; linked to cart and tax
    docs: str  # P3, open, nobody on it; linked to cart
    hotfix: str  # P0, closed at COMMIT; linked to tax


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    with filigree_dashboard(tmp_path_factory.mktemp("filigree") / "repo") as server:
        parser = server.create_issue("Cart totals drift", priority=1)
        server.claim(parser, "alice", commit=COMMIT)
        server.set_status(parser, "in_progress", actor="alice")
        docs = server.create_issue("Document cart API", priority=3)
        hotfix = server.create_issue("Tax rounding", priority=0, assignee="bob")
        server.close(hotfix, actor="bob", commit=COMMIT)
        server.associate(parser, SEI_CART)
        server.associate(docs, SEI_CART)
        server.associate(parser, SEI_TAX)
        server.associate(hotfix, SEI_TAX)
        yield Seeded(server, parser, docs, hotfix)


@pytest.mark.filigree
def test_fetch_work_returns_linked_issues_with_status_priority_and_assignee(seeded: Seeded) -> None:
    lookup = fetch_work(seeded.server.base_url, [SEI_CART, SEI_TAX])

    assert lookup.state == "present"
    assert lookup.reason is None
    cart = {item.issue_id: item for item in lookup.by_sei[SEI_CART]}
    assert set(cart) == {seeded.parser, seeded.docs}
    parser = cart[seeded.parser]
    assert parser.title == "Cart totals drift"
    assert (parser.status, parser.status_category) == ("in_progress", "wip")
    assert parser.priority == "P1"
    assert parser.assignee == "alice"
    assert parser.claim_commit == COMMIT
    assert parser.close_commit is None
    assert parser.url == f"{seeded.server.base_url}/#kanban&issue={seeded.parser}"
    docs = cart[seeded.docs]
    assert (docs.status, docs.priority, docs.assignee) == ("open", "P3", None)
    hotfix = next(i for i in lookup.by_sei[SEI_TAX] if i.issue_id == seeded.hotfix)
    assert (hotfix.status_category, hotfix.priority, hotfix.close_commit) == ("done", "P0", COMMIT)


@pytest.mark.filigree
def test_linked_issues_are_ordered_open_first_then_by_priority(seeded: Seeded) -> None:
    lookup = fetch_work(seeded.server.base_url, [SEI_TAX, SEI_CART])

    assert [i.issue_id for i in lookup.by_sei[SEI_TAX]] == [seeded.parser, seeded.hotfix]
    assert [i.issue_id for i in lookup.by_sei[SEI_CART]] == [seeded.parser, seeded.docs]


@pytest.mark.filigree
def test_each_distinct_linked_issue_is_fetched_once(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    fetched: list[str] = []
    original = _filigree_http._Reader.issue

    async def counting(self: _filigree_http._Reader, issue_id: str) -> object:
        fetched.append(issue_id)
        return await original(self, issue_id)

    monkeypatch.setattr(_filigree_http._Reader, "issue", counting)
    lookup = fetch_work(seeded.server.base_url, [SEI_CART, SEI_TAX, SEI_CART])

    assert lookup.state == "present"
    assert sorted(fetched) == sorted({seeded.parser, seeded.docs, seeded.hotfix})


@pytest.mark.filigree
def test_an_sei_without_links_is_absent(seeded: Seeded) -> None:
    lookup = fetch_work(seeded.server.base_url, [SEI_LONELY])

    assert lookup == WorkLookup(state="absent", by_sei={})


@pytest.mark.filigree
def test_only_linked_seis_appear_when_some_have_links(seeded: Seeded) -> None:
    lookup = fetch_work(seeded.server.base_url, [SEI_LONELY, SEI_CART])

    assert lookup.state == "present"
    assert list(lookup.by_sei) == [SEI_CART]


def test_no_seis_is_absent_without_a_request() -> None:
    assert fetch_work("http://127.0.0.1:9", ["", ""]).state == "absent"


@pytest.mark.filigree
def test_most_urgent_priority_ignores_closed_issues(seeded: Seeded) -> None:
    lookup = fetch_work(seeded.server.base_url, [SEI_TAX])

    # hotfix is P0 but closed; parser is P1 and open.
    assert most_urgent_priority(lookup.by_sei[SEI_TAX]) == "P1"
    closed_only = [i for i in lookup.items() if i.issue_id == seeded.hotfix]
    assert most_urgent_priority(closed_only) == "unknown"
    assert most_urgent_priority([]) == "unknown"


@pytest.mark.filigree
def test_review_actions_propose_each_linked_issue_once(seeded: Seeded) -> None:
    lookup = fetch_work(seeded.server.base_url, [SEI_CART, SEI_TAX])

    actions = review_actions(lookup.by_sei)

    assert [a["issue_id"] for a in actions] == [seeded.parser, seeded.docs, seeded.hotfix]
    assert {a["action"] for a in actions} == {"review_issue"}
    assert actions[0]["entities"] == [SEI_CART, SEI_TAX]
    assert actions[0]["command"] == f"filigree show {seeded.parser}"
    assert [a["issue_id"] for a in review_actions(lookup.items())] == [
        seeded.parser,
        seeded.docs,
        seeded.hotfix,
    ]


@pytest.mark.filigree
def test_the_published_port_file_leads_fetch_work_to_the_dashboard(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    port = seeded.server.base_url.rsplit(":", 1)[1]
    (seeded.server.repo_path / ".weft" / "filigree" / "ephemeral.port").write_text(port)

    base_url = filigree_base_url(seeded.server.repo_path)

    assert base_url == seeded.server.base_url
    assert fetch_work(base_url, [SEI_CART]).state == "present"


@pytest.mark.filigree
def test_fetch_work_works_from_a_thread_and_from_inside_an_event_loop(seeded: Seeded) -> None:
    def lookup() -> WorkLookup:
        return fetch_work(seeded.server.base_url, [SEI_CART])

    with ThreadPoolExecutor(max_workers=2) as pool:
        in_threads = [f.result() for f in [pool.submit(lookup), pool.submit(lookup)]]

    async def sync_call_inside_a_loop() -> WorkLookup:
        return lookup()

    in_loop = asyncio.run(sync_call_inside_a_loop())

    assert [r.state for r in [*in_threads, in_loop]] == ["present"] * 3


# --- filigree that cannot be consulted ---------------------------------------------------


def test_a_dead_port_is_unavailable_within_the_deadline() -> None:
    port = free_loopback_port()  # bound, then closed: nothing listens there now

    started = time.monotonic()
    lookup = fetch_work(f"http://127.0.0.1:{port}", [SEI_CART], deadline_s=DEADLINE_S)

    assert time.monotonic() - started < DEADLINE_S + MARGIN_S
    assert (lookup.state, lookup.reason_code, lookup.by_sei) == ("unavailable", "unreachable", {})
    assert lookup.reason


@pytest.fixture
def hanging_url() -> Iterator[str]:
    with hanging_server() as url:
        yield url


def test_a_hanging_server_is_unavailable_within_the_deadline(hanging_url: str) -> None:
    started = time.monotonic()
    lookup = fetch_work(hanging_url, [SEI_CART, SEI_TAX], read_timeout=FAR_S, deadline_s=DEADLINE_S)

    # The deadline ended it, not the read timeout (no tight wall-clock bound: a loaded
    # machine may be slow, but never by half of FAR_S).
    assert time.monotonic() - started < FAR_S / 2
    assert (lookup.state, lookup.reason_code) == ("unavailable", "timeout")


def test_a_read_timeout_shorter_than_the_deadline_also_gives_unavailable(hanging_url: str) -> None:
    started = time.monotonic()
    lookup = fetch_work(hanging_url, [SEI_CART], read_timeout=0.2, deadline_s=FAR_S)

    assert time.monotonic() - started < FAR_S / 2  # the read timeout ended it, not the deadline
    assert (lookup.state, lookup.reason_code) == ("unavailable", "timeout")


Route = Callable[[str], tuple[int, bytes]]


@pytest.fixture
def stub_server() -> Iterator[Callable[[Route], str]]:
    """Serve GETs from a route function ``path -> (status, body)``; yields a starter."""
    servers: list[ThreadingHTTPServer] = []

    def start(route: Route) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body = route(self.path)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        servers.append(server)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_garbage_json_is_unavailable(stub_server: Callable[[Route], str]) -> None:
    url = stub_server(lambda path: (200, b"<html>not filigree</html>"))

    lookup = fetch_work(url, [SEI_CART])

    assert (lookup.state, lookup.reason_code) == ("unavailable", "bad_response")


def test_an_http_error_is_unavailable(stub_server: Callable[[Route], str]) -> None:
    url = stub_server(lambda path: (500, b'{"error": "boom", "code": "INTERNAL"}'))

    lookup = fetch_work(url, [SEI_CART])

    assert (lookup.state, lookup.reason_code) == ("unavailable", "http_error")


def test_a_binding_whose_issue_is_gone_keeps_the_link_without_issue_facts(
    stub_server: Callable[[Route], str],
) -> None:
    row = {"issue_id": "wl-gone", "entity_id": SEI_CART, "status": None, "status_category": None}

    def route(path: str) -> tuple[int, bytes]:
        if path.startswith("/api/entity-associations"):
            return 200, json.dumps({"associations": [row]}).encode()
        return 404, b'{"error": "Issue not found: wl-gone", "code": "NOT_FOUND"}'

    lookup = fetch_work(stub_server(route), [SEI_CART])

    assert lookup.state == "present"
    [item] = lookup.by_sei[SEI_CART]
    assert (item.issue_id, item.status, item.url, item.is_open) == ("wl-gone", None, None, False)
    assert most_urgent_priority([item]) == "unknown"


def test_an_invalid_base_url_is_unavailable() -> None:
    lookup = fetch_work("localhost:8377", [SEI_CART])

    assert (lookup.state, lookup.reason_code) == ("unavailable", "invalid_url")


def test_every_httpx_exception_has_its_own_reason() -> None:
    catch_all = _filigree_http._HTTPX_REASONS[-1][0]
    specific = [exc for exc, _, _ in _filigree_http._HTTPX_REASONS[:-1]]
    httpx_errors = [
        obj
        for _, obj in inspect.getmembers(httpx, inspect.isclass)
        if issubclass(obj, httpx.HTTPError)
        and obj not in {httpx.HTTPError, httpx.RequestError}
        and obj is not httpx.TransportError
    ]
    unmapped = [exc.__name__ for exc in httpx_errors if not issubclass(exc, tuple(specific))]
    assert catch_all is httpx.HTTPError
    assert unmapped == []


# --- base URL resolution ------------------------------------------------------------------


def _publish_port(repo: Path, port: int, store: str = ".weft/filigree") -> None:
    (repo / store).mkdir(parents=True)
    (repo / store / "ephemeral.port").write_text(f"{port}\n")


def test_base_url_prefers_the_environment(tmp_path: Path) -> None:
    _publish_port(tmp_path, 9359)

    url = filigree_base_url(tmp_path, environ={ENV_VAR: "http://filigree.test:9000/api/"})

    assert url == "http://filigree.test:9000"


def test_base_url_uses_the_published_port_when_the_environment_is_empty(tmp_path: Path) -> None:
    _publish_port(tmp_path, 9359)

    assert filigree_base_url(tmp_path, environ={ENV_VAR: "  "}) == "http://127.0.0.1:9359"


def test_base_url_reads_the_legacy_store_port_file(tmp_path: Path) -> None:
    _publish_port(tmp_path, 8411, store=".filigree")

    assert filigree_base_url(tmp_path, environ={}) == "http://127.0.0.1:8411"


def test_base_url_falls_back_to_filigrees_default(tmp_path: Path) -> None:
    (tmp_path / ".weft" / "filigree").mkdir(parents=True)
    (tmp_path / ".weft" / "filigree" / "ephemeral.port").write_text("not a port")

    assert filigree_base_url(tmp_path, environ={}) == DEFAULT_BASE_URL == "http://127.0.0.1:8377"


def test_work_items_serialise_every_field() -> None:
    item = WorkItem("wl-1", "t", "open", "open", "P2", None, None, None, None)

    assert set(item.to_wire()) == {
        "issue_id",
        "title",
        "status",
        "status_category",
        "priority",
        "assignee",
        "claim_commit",
        "close_commit",
        "url",
    }
