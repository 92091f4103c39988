"""The network half of the filigree client: parallel reads under one deadline.

Every ``httpx`` failure is translated here, at one seam, into a ``FetchFailure``
(a reason code plus a sentence that says what to do). Nothing in this module raises
to ``warpline.federation.filigree``.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import quote

import httpx

ReasonCode = Literal["unreachable", "timeout", "http_error", "bad_response", "invalid_url"]

# Most specific first: the first matching class wins. A test checks that every
# httpx exception class maps to an entry before the catch-all ``httpx.HTTPError``.
_HTTPX_REASONS: Final[tuple[tuple[type[Exception], ReasonCode, str], ...]] = (
    (
        httpx.ConnectTimeout,
        "timeout",
        "could not connect to filigree at {url} within the {connect}s connect timeout",
    ),
    (
        httpx.TimeoutException,
        "timeout",
        "filigree at {url} did not answer within the {read}s read timeout",
    ),
    (
        httpx.ConnectError,
        "unreachable",
        "filigree is not reachable at {url} ({detail}); start it with `filigree ensure-dashboard` "
        "in the repository, or point FILIGREE_API_URL at a running dashboard",
    ),
    (
        httpx.ProxyError,
        "unreachable",
        "a proxy refused the connection to filigree at {url} ({detail}); check HTTP(S)_PROXY",
    ),
    (
        httpx.UnsupportedProtocol,
        "invalid_url",
        "the filigree URL {url!r} is not an http(s) URL; set FILIGREE_API_URL to e.g. "
        "http://127.0.0.1:8377",
    ),
    (
        httpx.NetworkError,
        "unreachable",
        "the connection to filigree at {url} failed ({detail}); is the dashboard still running?",
    ),
    (
        httpx.ProtocolError,
        "bad_response",
        "filigree at {url} answered with broken HTTP ({detail}); is FILIGREE_API_URL a "
        "filigree dashboard?",
    ),
    (
        httpx.DecodingError,
        "bad_response",
        "filigree at {url} sent a body that could not be decoded ({detail})",
    ),
    (
        httpx.TooManyRedirects,
        "bad_response",
        "filigree at {url} redirected too many times; point FILIGREE_API_URL at the dashboard",
    ),
    (httpx.HTTPStatusError, "http_error", "filigree at {url} answered an HTTP error ({detail})"),
    (
        httpx.InvalidURL,
        "invalid_url",
        "the filigree URL {url!r} is invalid ({detail}); set FILIGREE_API_URL to e.g. "
        "http://127.0.0.1:8377",
    ),
    (httpx.HTTPError, "unreachable", "the request to filigree at {url} failed ({detail})"),
)


class FetchFailure(Exception):
    """Why filigree could not be consulted: the value of ``WorkLookup.reason``."""

    def __init__(self, code: ReasonCode, reason: str) -> None:
        super().__init__(code, reason)
        self.code: ReasonCode = code
        self.reason = reason


def translate_httpx_error(
    exc: Exception, *, url: str, connect_timeout: float, read_timeout: float
) -> FetchFailure:
    """Map an ``httpx`` exception to a reason code and a sentence that says what to do."""
    for exc_type, code, template in _HTTPX_REASONS:
        if isinstance(exc, exc_type):
            detail = str(exc) or type(exc).__name__
            text = template.format(
                url=url, detail=detail, connect=connect_timeout, read=read_timeout
            )
            return FetchFailure(code, text)
    raise TypeError(f"not an httpx exception: {exc!r}")


@dataclass(frozen=True, slots=True)
class RawLinks:
    """What filigree answered: association rows per SEI, issue records per issue id.

    An issue id whose record is ``None`` got a 404: the binding outlived its issue.
    """

    rows_by_sei: dict[str, list[dict[str, Any]]]
    issues: dict[str, dict[str, Any] | None]


def _is_loopback(base_url: str) -> bool:
    host = httpx.URL(base_url).host
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Reader:
    """One client, one base URL, one translation of failures."""

    def __init__(self, client: httpx.AsyncClient, base_url: str, timeouts: tuple[float, float]):
        self._client = client
        self._base_url = base_url
        self._connect, self._read = timeouts

    async def get_json(self, path: str, params: Mapping[str, str] | None = None) -> object:
        """GET ``path``; ``None`` on 404, the decoded JSON otherwise."""
        try:
            response = await self._client.get(path, params=params)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise translate_httpx_error(
                exc, url=self._base_url, connect_timeout=self._connect, read_timeout=self._read
            ) from exc
        if response.status_code == 404:
            return None
        if response.is_error:
            raise FetchFailure(
                "http_error",
                f"filigree at {self._base_url} answered HTTP {response.status_code} to GET {path}: "
                f"{response.text[:200]}",
            )
        try:
            return response.json()
        except ValueError as exc:
            raise FetchFailure(
                "bad_response",
                f"filigree at {self._base_url} answered GET {path} with something that is not "
                "JSON; is FILIGREE_API_URL a filigree dashboard?",
            ) from exc

    async def associations(self, sei: str) -> list[dict[str, Any]]:
        payload = await self.get_json("/api/entity-associations", {"entity_id": sei})
        if payload is None:
            raise FetchFailure(
                "http_error",
                f"{self._base_url} answered HTTP 404 to GET /api/entity-associations, so it is "
                "not a filigree 3.4+ dashboard (or a proxy is in the way); check FILIGREE_API_URL",
            )
        rows = payload.get("associations") if isinstance(payload, dict) else None
        if not isinstance(rows, list):
            raise FetchFailure(
                "bad_response",
                f"filigree at {self._base_url} answered the entity-association lookup without an "
                "'associations' list",
            )
        return [
            row for row in rows if isinstance(row, dict) and isinstance(row.get("issue_id"), str)
        ]

    async def issue(self, issue_id: str) -> dict[str, Any] | None:
        payload = await self.get_json(f"/api/issue/{quote(issue_id, safe='')}")
        if payload is not None and not isinstance(payload, dict):
            raise FetchFailure(
                "bad_response",
                f"filigree at {self._base_url} answered issue {issue_id} with non-object JSON",
            )
        return payload


async def fetch_links(
    base_url: str,
    seis: list[str],
    *,
    connect_timeout: float,
    read_timeout: float,
    deadline_s: float,
    max_concurrency: int,
) -> RawLinks | FetchFailure:
    """Reverse-look-up every SEI, then fetch each distinct linked issue once, in parallel.

    The whole exchange, both rounds, runs under one ``deadline_s``.
    """
    timeout = httpx.Timeout(
        connect=connect_timeout, read=read_timeout, write=read_timeout, pool=None
    )
    limits = httpx.Limits(
        max_connections=max_concurrency, max_keepalive_connections=max_concurrency
    )
    try:
        # Proxies from the environment never make sense for a loopback dashboard.
        client = httpx.AsyncClient(
            base_url=base_url, timeout=timeout, limits=limits, trust_env=not _is_loopback(base_url)
        )
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return translate_httpx_error(
            exc, url=base_url, connect_timeout=connect_timeout, read_timeout=read_timeout
        )
    async with client:
        reader = _Reader(client, base_url, (connect_timeout, read_timeout))
        try:
            async with asyncio.timeout(deadline_s):
                async with asyncio.TaskGroup() as group:
                    row_tasks = {sei: group.create_task(reader.associations(sei)) for sei in seis}
                rows_by_sei = {sei: task.result() for sei, task in row_tasks.items()}
                issue_ids = dict.fromkeys(
                    row["issue_id"] for rows in rows_by_sei.values() for row in rows
                )
                async with asyncio.TaskGroup() as group:
                    issue_tasks = {iid: group.create_task(reader.issue(iid)) for iid in issue_ids}
                issues = {iid: task.result() for iid, task in issue_tasks.items()}
        except TimeoutError:
            return FetchFailure(
                "timeout",
                f"filigree at {base_url} did not finish the work lookup for {len(seis)} "
                f"entities within the {deadline_s}s deadline",
            )
        except ExceptionGroup as group_error:
            failures, others = group_error.split(FetchFailure)
            if failures is None or others is not None:
                raise  # a bug, not a filigree failure: let it surface
            first = failures.exceptions[0]
            while isinstance(first, ExceptionGroup):
                first = first.exceptions[0]
            assert isinstance(first, FetchFailure)
            return first
    return RawLinks(rows_by_sei=rows_by_sei, issues=issues)
