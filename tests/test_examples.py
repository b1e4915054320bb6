"""The example clients (examples/): they pass against the service and fail when an answer changes
shape. tests/smoke_server.sh runs them against the real gunicorn server as well."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest
from service_fixtures import TEST_CONFIG

from service.app import create_app

pytestmark = pytest.mark.slow  # the example clients against a real server, Node included

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = {
    "python": [sys.executable, str(ROOT / "examples" / "client.py")],
    "node": ["node", str(ROOT / "examples" / "client.js")],
}


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def _drop_deck(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """The app, except that verdicts lose their "deck" field (a changed shape)."""
    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        seen: dict[str, Any] = {}

        def start(status: str, headers: list[tuple[str, str]], _exc_info: Any = None) -> Any:
            seen["status"], seen["headers"] = status, headers

        body = b"".join(app(environ, start))
        if dict(seen["headers"]).get("Content-Type") == "application/json":
            data = json.loads(body)
            for verdict in data.get("results", [data]):
                verdict.pop("deck", None)
            body = json.dumps(data).encode()
        headers = [(k, v) for k, v in seen["headers"] if k != "Content-Length"] + [("Content-Length", str(len(body)))]
        start_response(seen["status"], headers)
        return [body]
    return wsgi


def _serve(app: Callable[..., Iterable[bytes]]) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, app, server_class=WSGIServer, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def live() -> Iterator[str]:
    yield from _serve(create_app(TEST_CONFIG))


@pytest.fixture(scope="module")
def changed() -> Iterator[str]:
    yield from _serve(_drop_deck(create_app(TEST_CONFIG)))


def _run(client: str, url: str) -> subprocess.CompletedProcess[str]:
    if shutil.which(CLIENTS[client][0]) is None:
        pytest.skip(f"{client} is not installed here (bash examples/setup.sh installs it; smoke_server.sh requires it)")
    return subprocess.run([*CLIENTS[client], url], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("client", CLIENTS)
def test_client_runs_against_the_service(client: str, live: str) -> None:
    done = _run(client, live)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "JAZZ with the double deck: legal" in done.stdout and done.stdout.rstrip().endswith("ok")


@pytest.mark.parametrize("client", CLIENTS)
def test_client_fails_when_an_answer_changes_shape(client: str, changed: str) -> None:
    done = _run(client, changed)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "unexpected answer: verdict keys" in done.stderr
