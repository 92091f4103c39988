"""A real filigree dashboard for tests: a tmp git repo, `filigree init`, one loopback port.

Use it from a module-scoped fixture, so the dashboard starts once per module::

    @pytest.fixture(scope="module")
    def filigree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FiligreeServer]:
        with filigree_dashboard(tmp_path_factory.mktemp("filigree")) as server:
            yield server

The helpers write through filigree's own HTTP API, the same one warpline reads. They
fail loudly: a fixture that cannot set up its data is a broken test, not a skip.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pygit2
import pytest

STARTUP_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0


def free_loopback_port() -> int:
    """A port nothing listens on right now. There is a small race, which tests accept."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def require_filigree() -> str:
    """The filigree executable, or skip the test with the reason."""
    executable = shutil.which("filigree")
    if executable is None:
        pytest.skip("filigree is not installed (pip install 'filigree>=3.4.0')")
    return executable


@dataclass
class FiligreeServer:
    """A running dashboard, with write helpers that go through its HTTP API."""

    base_url: str
    repo_path: Path
    pid: int
    startup_s: float
    _client: httpx.Client = field(repr=False)

    def _call(self, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self._client.request(method, path, json=body)
        if response.is_error:
            raise AssertionError(
                f"filigree {method} {path} -> {response.status_code}: {response.text}"
            )
        payload: dict[str, Any] = response.json()
        return payload

    def create_issue(
        self,
        title: str,
        *,
        priority: int = 2,
        assignee: str | None = None,
        issue_type: str = "task",
        description: str = "",
    ) -> str:
        """Create an issue and return its id. ``priority`` is filigree's int 0..4.

        A non-empty ``assignee`` claims the issue, as filigree does.
        """
        body: dict[str, Any] = {"title": title, "priority": priority, "type": issue_type}
        if assignee:
            body["assignee"] = assignee
        if description:
            body["description"] = description
        issue_id: str = self._call("POST", "/api/issues", body)["id"]
        return issue_id

    def associate(self, issue_id: str, sei: str, *, content_hash: str = "warpline-test") -> None:
        """Bind ``issue_id`` to the entity ``sei`` (an ADR-029 entity association)."""
        body = {"entity_id": sei, "content_hash": content_hash, "entity_kind": "loomweave-entity"}
        self._call("POST", f"/api/issue/{issue_id}/entity-associations", body)

    def claim(self, issue_id: str, assignee: str, *, commit: str | None = None) -> None:
        body: dict[str, Any] = {"assignee": assignee}
        if commit is not None:
            body["commit"] = commit
        self._call("POST", f"/api/issue/{issue_id}/claim", body)

    def set_status(self, issue_id: str, status: str, *, actor: str = "dashboard") -> None:
        self._call("PATCH", f"/api/issue/{issue_id}", {"status": status, "actor": actor})

    def close(self, issue_id: str, *, actor: str = "dashboard", commit: str | None = None) -> None:
        """Close ``issue_id``. For a claimed issue, ``actor`` must be the assignee."""
        body: dict[str, Any] = {"reason": "done", "actor": actor}
        if commit is not None:
            body["commit"] = commit
        self._call("POST", f"/api/issue/{issue_id}/close", body)


def _init_repo(repo_path: Path, filigree: str) -> None:
    repo_path.mkdir(parents=True, exist_ok=True)
    pygit2.init_repository(str(repo_path))
    subprocess.run(
        [filigree, "init", "--prefix", "wl", "--population", "product-use"],
        cwd=repo_path,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _wait_ready(process: subprocess.Popen[bytes], base_url: str, log_path: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    with httpx.Client(base_url=base_url, timeout=1.0, trust_env=False) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(
                    f"filigree dashboard exited with {process.returncode}:\n{log_path.read_text()}"
                )
            try:
                if client.get("/api/health").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
    raise RuntimeError(
        f"filigree dashboard not ready after {STARTUP_TIMEOUT_S}s:\n{log_path.read_text()}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the dashboard by its pid: SIGTERM, then SIGKILL after a timeout."""
    if process.poll() is not None:
        return
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT_S)


@contextmanager
def filigree_dashboard(repo_path: Path) -> Iterator[FiligreeServer]:
    """Init filigree in a fresh git repo at ``repo_path``, serve it, and stop it on exit."""
    filigree = require_filigree()
    _init_repo(repo_path, filigree)
    port = free_loopback_port()
    base_url = f"http://127.0.0.1:{port}"
    log_path = repo_path / ".weft" / "filigree" / "test-dashboard.log"
    started = time.monotonic()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [filigree, "dashboard", "--no-browser", "--port", str(port)],
            cwd=repo_path,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_ready(process, base_url, log_path)
        startup_s = time.monotonic() - started
        with httpx.Client(base_url=base_url, timeout=10.0, trust_env=False) as client:
            yield FiligreeServer(base_url, repo_path, process.pid, startup_s, client)
    finally:
        _stop(process)


@contextmanager
def hanging_server() -> Iterator[str]:
    """A loopback server that accepts connections and never answers (a hung peer)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.05)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept_forever() -> None:
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in accepted:
            conn.close()
        listener.close()
