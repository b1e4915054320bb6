"""Definitions over HTTP: ?define=true on a word, "define": true in a batch (issue 11)."""
from __future__ import annotations

from flask.testing import FlaskClient

from dictionaries.definitions import definitions


def test_a_word_with_its_meanings(client: FlaskClient) -> None:
    plain = client.get("/v1/words/taps").get_json()
    defined = client.get("/v1/words/taps?define=true")
    assert defined.status_code == 200
    body = defined.get_json()
    assert body.pop("definitions") == [d.to_dict() for d in definitions("taps")] != []
    assert body == plain  # the verdict itself is the same
    assert "definitions" not in plain
    assert client.get("/v1/words/taps?define=false").get_json() == plain


def test_etags_differ_with_and_without_meanings(client: FlaskClient) -> None:
    assert client.get("/v1/words/taps").headers["ETag"] != client.get("/v1/words/taps?define=true").headers["ETag"]


def test_a_word_wordnet_does_not_know_has_an_empty_list(client: FlaskClient) -> None:
    assert client.get("/v1/words/xyzzyq?define=true").get_json()["definitions"] == []


def test_a_batch_with_meanings_keeps_order(client: FlaskClient) -> None:
    results = client.post("/v1/words", json={"words": ["qat", "xyzzyq", "taps"], "define": True}).get_json()["results"]
    assert [r["word"] for r in results] == ["QAT", "XYZZYQ", "TAPS"]
    assert results[0]["definitions"][0]["part_of_speech"] == "noun" and results[1]["definitions"] == []
    assert all("definitions" not in r for r in client.post("/v1/words", json={"words": ["qat"]}).get_json()["results"])


def test_define_must_be_a_boolean(client: FlaskClient) -> None:
    for response in (client.get("/v1/words/taps?define=yes"), client.post("/v1/words", json={"words": ["qat"], "define": 1})):
        assert response.status_code == 400 and response.mimetype == "application/problem+json"
        assert "define must be true or false" in response.get_json()["detail"]
