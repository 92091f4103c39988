"""A pytest plugin that keeps a foreign test suite on loopback (``-p _loopback_guard``).

Loaded into the real requests suite that the selection benchmark and the real-suite test
run: every name lookup of a host other than ``localhost``, and every connect or datagram to
an address that is not loopback (or unspecified, which Linux routes to loopback), is refused
with the error the real network would give when unreachable (``socket.gaierror`` /
``ENETUNREACH``) *before* anything is sent, and written to the JSON-lines file named by
``LOOPBACK_GUARD_LOG`` (the test's node id, the call, the host), so a run can prove that no
test tried to leave the machine. The deselection list in ``_requests_corpus`` keeps the
tests that would; this guard is the check that the list is complete, not a stand-in for a
network. ``LOOPBACK_GUARD_DESELECT`` (node ids, one a line) deselects those tests exactly.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import os
import socket
from typing import Any

LOG_ENV = "LOOPBACK_GUARD_LOG"
DESELECT_ENV = "LOOPBACK_GUARD_DESELECT"
_LOCAL_NAMES = {"localhost", "localhost.", "ip6-localhost", ""}

_real_getaddrinfo = socket.getaddrinfo
_real_gethostbyname = socket.gethostbyname
_real_gethostbyname_ex = socket.gethostbyname_ex
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_sendto = socket.socket.sendto


def _is_local(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    name = host.strip("[]").split("%", 1)[0].lower()
    if name in _LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _is_numeric(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    try:
        ipaddress.ip_address(str(host).strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


def _record(call: str, host: Any) -> None:
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps({"test": test, "call": call, "host": repr(host)}) + "\n")


def _refuse_lookup(call: str, host: Any) -> None:
    _record(call, host)
    raise socket.gaierror(socket.EAI_NONAME, f"loopback guard: no lookup of {host!r}")


def _refuse_connect(call: str, host: Any) -> None:
    _record(call, host)
    raise OSError(errno.ENETUNREACH, f"loopback guard: {host!r} is not loopback")


def _inet_host(sock: socket.socket, address: Any) -> Any:
    if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
        return address[0]
    return None  # AF_UNIX and friends never leave the machine


def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_local(host) and not _is_numeric(host):
        _refuse_lookup("getaddrinfo", host)
    return _real_getaddrinfo(host, *args, **kwargs)


def gethostbyname(host: str) -> str:
    if not _is_local(host) and not _is_numeric(host):
        _refuse_lookup("gethostbyname", host)
    return _real_gethostbyname(host)


def gethostbyname_ex(host: str) -> Any:
    if not _is_local(host) and not _is_numeric(host):
        _refuse_lookup("gethostbyname_ex", host)
    return _real_gethostbyname_ex(host)


def connect(self: socket.socket, address: Any) -> None:
    host = _inet_host(self, address)
    if host is not None and not _is_local(host):
        _refuse_connect("connect", host)
    _real_connect(self, address)


def connect_ex(self: socket.socket, address: Any) -> int:
    host = _inet_host(self, address)
    if host is not None and not _is_local(host):
        _record("connect_ex", host)
        return errno.ENETUNREACH
    return _real_connect_ex(self, address)


def sendto(self: socket.socket, data: Any, *args: Any) -> int:
    host = _inet_host(self, args[-1]) if args else None
    if host is not None and not _is_local(host):
        _refuse_connect("sendto", host)
    return int(_real_sendto(self, data, *args))


def install() -> None:
    socket.getaddrinfo = getaddrinfo
    socket.gethostbyname = gethostbyname
    socket.gethostbyname_ex = gethostbyname_ex
    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
    socket.socket.sendto = sendto  # type: ignore[method-assign,assignment]


def _deselected(node_id: str, wanted: set[str]) -> bool:
    return node_id in wanted or node_id.split("[", 1)[0] in wanted


def pytest_configure(config: Any) -> None:
    install()


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    """Deselect the node ids listed in ``LOOPBACK_GUARD_DESELECT`` (one a line), exactly:
    an id names that test, or a function's id every parametrization of it."""
    wanted = {line.strip() for line in os.environ.get(DESELECT_ENV, "").splitlines()
              if line.strip()}
    if not wanted:
        return
    keep = [item for item in items if not _deselected(item.nodeid, wanted)]
    dropped = [item for item in items if _deselected(item.nodeid, wanted)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
