"""The floors of benchmarks/bench_service.py --floors answer what they claim: the verdict floor sends the
service's own verdict and header names, the look-up floor one fixed verdict (a floor that answered less
would make the service look dearer than it is)."""
from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from benchmarks.peers import create_lookup_floor, create_verdict_floor


def call(app: Any, path: str) -> tuple[str, list[tuple[str, str]], bytes]:
    """``app``'s status, headers and body for ``GET path``."""
    started: list[Any] = []
    body = b"".join(app({"REQUEST_METHOD": "GET", "PATH_INFO": path}, lambda *args: started.extend(args)))
    return started[0], started[1], body


@pytest.mark.usefixtures("app")
@pytest.mark.parametrize("word", ["taps", "qwzx", "cats", "zzzzzzzz"])
def test_the_verdict_floor_sends_the_service_verdict(client: FlaskClient, word: str) -> None:
    status, headers, body = call(create_verdict_floor(), f"/v1/words/{word}")
    served = client.get(f"/v1/words/{word}")
    assert status == "200 OK" and body == served.data
    assert [name for name, _value in headers] == list(served.headers.keys())
    assert [len(value) for name, value in headers if name == "ETag"] == [len(served.headers["ETag"])]


@pytest.mark.usefixtures("app")
def test_the_lookup_floor_sends_one_fixed_verdict(client: FlaskClient) -> None:
    floor = create_lookup_floor()
    assert call(floor, "/v1/words/qwzx")[2] == call(floor, "/v1/words/cats")[2] == client.get("/v1/words/taps").data
