"""The floors of benchmarks/bench_service.py --floors answer what they claim: the verdict floor sends the
service's own verdict and header names, the look-up floor one fixed verdict (a floor that answered less
would make the service look dearer than it is)."""
from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from benchmarks.peers import create_lookup_floor, create_verdict_floor
from dictionaries.dictionary import Dictionary, open_dictionary


def call(app: Any, path: str) -> tuple[str, list[tuple[str, str]], bytes]:
    """``app``'s status, headers and body for ``GET path``."""
    started: list[Any] = []
    body = b"".join(app({"REQUEST_METHOD": "GET", "PATH_INFO": path}, lambda *args: started.extend(args)))
    return started[0], started[1], body


@pytest.mark.parametrize("word", ["taps", "qwzx", "flam", "jazz", "zzzzzzzz"])
def test_the_verdict_floor_sends_the_service_verdict(client: FlaskClient, word: str) -> None:
    status, headers, body = call(create_verdict_floor(), f"/v1/words/{word}")
    served = client.get(f"/v1/words/{word}")
    assert status == "200 OK" and body == served.data
    assert [name for name, _value in headers] == list(served.headers.keys())
    assert [len(value) for name, value in headers if name == "ETag"] == [len(served.headers["ETag"])]


class Asked:
    """A trie that records the keys asked of it (marisa's own type cannot be patched)."""

    def __init__(self, trie: Any) -> None:
        self.trie = trie
        self.keys: list[bytes] = []

    def get(self, key: bytes, default: Any = None) -> Any:
        self.keys.append(key)
        return self.trie.get(key, default)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.trie, name)


def test_the_lookup_floor_looks_up_and_sends_one_fixed_verdict(client: FlaskClient, dictionary: Dictionary,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    assert open_dictionary() is dictionary, "the floor opens the dictionary the fixture holds"
    asked = Asked(dictionary._words)
    monkeypatch.setattr(dictionary, "_words", asked)
    floor = create_lookup_floor()
    asked.keys.clear()
    sent = call(floor, "/v1/words/qwzx")[2], call(floor, "/v1/words/Cats")[2]
    assert asked.keys == [b"qwzx", b"cats"]
    assert sent[0] == sent[1] == client.get("/v1/words/taps").data
