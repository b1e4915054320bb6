"""The word service through Flask's test client: every endpoint, error, limit and header.

Over 500 lines because it walks the whole API surface, endpoint by endpoint; its contract with the
OpenAPI document, its languages and its definitions have modules of their own."""
from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st
from service_fixtures import TEST_CONFIG, fast_and_flask, get_environ

from dictionaries import LEVELS
from dictionaries.deck import DOUBLE, STANDARD
from dictionaries.dictionary import MAX_RACK_LETTERS, Dictionary
from dictionaries.errors import DictionaryError
from dictionaries.verdict import MAX_INPUT_CHARS, REASON_CODES, judge
from service import answers, verdict_text
from service.app import create_app
from service.core import MAX_BODY_BYTES

JSON = "application/json"
PROBLEM = "application/problem+json"

#: One real word per reason code (and a legal one), from the shipped dictionary.
REASON_EXAMPLES: dict[str, str] = {
    "too_short": "IT",
    "too_long": "PONTOONS",
    "proper_noun": "LONDON",
    "abbreviation": "APTS",
    "acronym": "NASA",
    "contraction": "DONT",
    "phrase_piece": "QUO",
    "uncommon": "FLAM",
    "unknown": "XYZZY",
    "deck_limit": "JAZZ",
}


def assert_problem(response: Any, status: int, type_: str | None = None) -> dict[str, Any]:
    """The response is an RFC 9457 problem with ``status`` (and ``type_`` when given)."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json(force=True)
    assert set(body) == {"type", "title", "status", "detail"}
    assert body["status"] == status
    assert body["title"] and body["detail"]
    if type_ is not None:
        assert body["type"] == type_
    text = response.get_data(as_text=True)
    assert "Traceback" not in text and "<html" not in text.lower()
    problem: dict[str, Any] = body
    return problem


def problem_type(name: str) -> str:
    return f"urn:unspeakable-words:problem:{name}"


def verdict(dictionary: Dictionary, word: str, level: int = 60, deck: Any = STANDARD) -> dict[str, Any]:
    """What the service answers for ``word``: the verdict, and the deck it used."""
    return {**judge(dictionary, word, level, deck).to_dict(), "deck": deck.name}


# -- GET /v1/words/{word} -------------------------------------------------------------------------

def test_every_reason_code_has_an_example() -> None:
    assert set(REASON_EXAMPLES) == set(REASON_CODES)


@pytest.mark.parametrize("code", REASON_CODES)
def test_word_not_legal_is_200_with_its_reason(client: FlaskClient, dictionary: Dictionary, code: str) -> None:
    word = REASON_EXAMPLES[code]
    response = client.get(f"/v1/words/{word.lower()}")
    assert response.status_code == 200
    assert response.mimetype == JSON
    body = response.get_json()
    assert body == verdict(dictionary, word.lower())
    assert body["legal"] is False
    assert code in [reason["code"] for reason in body["reasons"]]


def test_legal_word(client: FlaskClient) -> None:
    body = client.get("/v1/words/taps").get_json()
    assert body == {
        "word": "TAPS", "legal": True, "reasons": [], "score": 10,
        "letters": [{"letter": "T", "points": 2}, {"letter": "A", "points": 5},
                    {"letter": "P", "points": 3}, {"letter": "S", "points": 0}],
        "level": body["level"], "success_chance": body["success_chance"], "deck": "standard",
    }
    assert list(body) == ["word", "legal", "reasons", "score", "letters", "level", "success_chance", "deck"]


@pytest.mark.parametrize("written, code", [("don't", "contraction"), ("u.s.a.", "abbreviation")])
def test_apostrophes_and_periods_are_judged(client: FlaskClient, dictionary: Dictionary, written: str, code: str) -> None:
    response = client.get(f"/v1/words/{written}")
    assert response.status_code == 200
    body = response.get_json()
    assert body == verdict(dictionary, written)
    assert body["reasons"][0]["code"] == code


def test_level_parameter(client: FlaskClient) -> None:
    assert client.get("/v1/words/flam").get_json()["legal"] is False
    assert client.get("/v1/words/flam?level=70").get_json()["legal"] is True
    assert client.get("/v1/words/taps?level=10").get_json()["reasons"][0]["code"] == "uncommon"


@pytest.mark.parametrize("level", ["61", "0", "abc", "", "-60", "+60", "60.0", "6_0", " 60", "1e3"])
def test_bad_level_is_400(client: FlaskClient, level: str) -> None:
    body = assert_problem(client.get("/v1/words/taps", query_string={"level": level}), 400, problem_type("invalid-level"))
    assert "10, 20, 35" in body["detail"]


@pytest.mark.parametrize("word", ["a1", "taps!", "ta ps", "ta-ps", "\U0001f600", "...", "ta%ps"])
def test_malformed_word_is_400(client: FlaskClient, word: str) -> None:
    response = client.get("/v1/words/" + word.replace("%", "%25"))
    assert_problem(response, 400, problem_type("invalid-word"))


def test_invalid_utf8_in_the_path_is_400(client: FlaskClient) -> None:
    assert_problem(client.get("/v1/words/%FF%FE"), 400, problem_type("invalid-word"))
    assert_problem(client.get("/v1/racks/%FF"), 400, problem_type("invalid-rack"))


def test_word_length_limit(client: FlaskClient) -> None:
    at_limit = client.get("/v1/words/" + "a" * MAX_INPUT_CHARS)
    assert at_limit.status_code == 200
    assert at_limit.get_json()["reasons"][0]["code"] == "too_long"
    assert_problem(client.get("/v1/words/" + "a" * (MAX_INPUT_CHARS + 1)), 400, problem_type("invalid-word"))
    assert MAX_INPUT_CHARS == 64


def test_head_answers_like_get(client: FlaskClient) -> None:
    response = client.head("/v1/words/taps")
    assert response.status_code == 200
    assert response.headers["ETag"] == client.get("/v1/words/taps").headers["ETag"]
    assert response.get_data() == b""


# -- POST /v1/words -------------------------------------------------------------------------------

def test_batch_keeps_order_and_matches_judge(client: FlaskClient, dictionary: Dictionary) -> None:
    words = ["taps", "jazz", "don't", "IT", "flam", "xyzzy", "Taps"]
    response = client.post("/v1/words", json={"words": words, "level": 70})
    assert response.status_code == 200
    assert response.mimetype == JSON
    assert response.get_json() == {"results": [verdict(dictionary, w, 70) for w in words]}


def test_batch_default_level_and_empty(client: FlaskClient) -> None:
    assert client.post("/v1/words", json={"words": ["flam"]}).get_json()["results"][0]["legal"] is False
    assert client.post("/v1/words", json={"words": []}).get_json() == {"results": []}


def test_batch_word_limit(client: FlaskClient) -> None:
    words = [REASON_EXAMPLES[c] for c in REASON_CODES] * 112
    at_limit = words[:1000]
    response = client.post("/v1/words", json={"words": at_limit})
    assert response.status_code == 200
    results = response.get_json()["results"]
    assert [r["word"] for r in results] == [w.upper() for w in at_limit]
    body = assert_problem(client.post("/v1/words", json={"words": words[:1001]}), 400, problem_type("invalid-request"))
    assert "1001" in body["detail"]


@pytest.mark.parametrize("body, problem", [
    (b"not json", "invalid-request"),
    (b"", "invalid-request"),
    (b"\xff\xfe", "invalid-request"),
    (b'["taps"]', "invalid-request"),
    (b'{"word": ["taps"]}', "invalid-request"),
    (b'{"words": "taps"}', "invalid-request"),
    (b'{"words": null}', "invalid-request"),
    (b'{"words": ["taps"], "deck": "dubble"}', "invalid-deck"),
    (b'{"words": ["taps"], "deck": 2}', "invalid-deck"),
    (b'{"words": ["taps"], "lvl": 60}', "invalid-request"),
    (b'{"words": ["taps", 7]}', "invalid-word"),
    (b'{"words": ["taps", ["x"]]}', "invalid-word"),
    (b'{"words": ["taps", "t4ps"]}', "invalid-word"),
    (b'{"words": ["taps", ""]}', "invalid-word"),
    (b'{"words": ["taps"], "level": "60"}', "invalid-level"),
    (b'{"words": ["taps"], "level": true}', "invalid-level"),
    (b'{"words": ["taps"], "level": null}', "invalid-level"),
    (b'{"words": ["taps"], "level": 61}', "invalid-level"),
    (b'{"words": ["taps"], "level": 60.5}', "invalid-level"),
])
def test_batch_bad_body_is_400(client: FlaskClient, body: bytes, problem: str) -> None:
    response = client.post("/v1/words", data=body, content_type=JSON)
    assert_problem(response, 400, problem_type(problem))


def test_batch_names_the_bad_word(client: FlaskClient) -> None:
    body = assert_problem(client.post("/v1/words", json={"words": ["taps", "jazz", "t4ps"]}), 400)
    assert body["detail"].startswith("words[2]")


def _padded_body(size: int) -> bytes:
    """A valid batch body of exactly ``size`` bytes (JSON allows trailing whitespace)."""
    body = json.dumps({"words": ["taps", "jazz"] * 500}).encode()
    assert len(body) <= size
    return body + b" " * (size - len(body))


def test_body_size_limit(client: FlaskClient) -> None:
    assert MAX_BODY_BYTES == 64 * 1024
    at_limit = client.post("/v1/words", data=_padded_body(MAX_BODY_BYTES), content_type=JSON)
    assert at_limit.status_code == 200
    assert len(at_limit.get_json()["results"]) == 1000
    too_big = client.post("/v1/words", data=_padded_body(MAX_BODY_BYTES + 1), content_type=JSON)
    assert_problem(too_big, 413)


# -- GET /v1/racks/{letters} ----------------------------------------------------------------------

def test_rack_best_first(client: FlaskClient, dictionary: Dictionary) -> None:
    response = client.get("/v1/racks/tapsxe")
    assert response.status_code == 200
    body = response.get_json()
    assert body["letters"] == "TAPSXE"
    assert body["level"] == 60
    assert body["words"] == [w.to_dict() for w in dictionary.rack("tapsxe", 60)]
    assert body["words"], "this rack makes words"
    scores = [w["score"] for w in body["words"]]
    assert scores == sorted(scores, reverse=True)
    assert {"TAPS", "EXPAT"} <= {w["word"] for w in body["words"]}
    assert set(body["words"][0]) == {"word", "score", "success_chance"}


def test_rack_limit_and_level(client: FlaskClient, dictionary: Dictionary) -> None:
    body = client.get("/v1/racks/tapsxe?limit=3&level=80").get_json()
    assert body["words"] == [w.to_dict() for w in dictionary.rack("tapsxe", 80, limit=3)]
    assert len(body["words"]) == 3
    assert len(client.get("/v1/racks/tapsxe?limit=10000").get_json()["words"]) == len(dictionary.rack("tapsxe", 60))


def test_rack_letter_limit(client: FlaskClient) -> None:
    letters = "aeilnrst"
    assert len(letters) == MAX_RACK_LETTERS + 1
    at_limit = client.get(f"/v1/racks/{letters[:MAX_RACK_LETTERS]}")
    assert at_limit.status_code == 200
    assert len(at_limit.get_json()["words"]) > 100
    body = assert_problem(client.get(f"/v1/racks/{letters}"), 400, problem_type("invalid-rack"))
    assert body["detail"] == "rack 'aeilnrst' has 8 letters; a rack is a hand, so send 1 to 7 letters"
    spanish = client.get(f"/v1/racks/{letters}", headers={"Accept-Language": "es"}).get_json()
    assert spanish["detail"] == ("la mano 'aeilnrst' tiene 8 letras; una mano tiene como máximo 7 cartas, así que "
                                 "envía de 1 a 7 letras")


@pytest.mark.parametrize("letters", ["ab1", "a b", "tap's", "\u00e9t\u00e9"])
def test_bad_rack_is_400(client: FlaskClient, letters: str) -> None:
    assert_problem(client.get(f"/v1/racks/{letters}"), 400, problem_type("invalid-rack"))


@pytest.mark.parametrize("limit", ["0", "-1", "abc", "", "10001", "2.5", "+3"])
def test_bad_limit_is_400(client: FlaskClient, limit: str) -> None:
    assert_problem(client.get("/v1/racks/tapsxe", query_string={"limit": limit}), 400, problem_type("invalid-request"))


def test_rack_bad_level_is_400(client: FlaskClient) -> None:
    assert_problem(client.get("/v1/racks/tapsxe?level=5"), 400, problem_type("invalid-level"))


# -- deck, dictionary, health ---------------------------------------------------------------------

def test_deck(client: FlaskClient) -> None:
    body = client.get("/v1/deck").get_json()
    assert body == {"name": "standard", "size": 96, "cards": STANDARD.table()}
    assert body["cards"][0] == {"letter": "A", "count": 10, "points": 5}


@pytest.mark.usefixtures("dictionary")
def test_double_deck_config() -> None:
    client = create_app({**TEST_CONFIG, "UW_DECK": "double"}).test_client()
    assert client.get("/v1/deck").get_json()["cards"] == DOUBLE.table()
    assert client.get("/v1/words/jazz").get_json()["legal"] is True


def test_dictionary(client: FlaskClient, dictionary: Dictionary) -> None:
    body = client.get("/v1/dictionary").get_json()
    meta = dictionary.metadata
    assert body["source"] == meta["source"]
    assert body["version"] == meta["version"]
    assert body["levels"] == list(LEVELS)
    assert body["default_level"] == 60
    assert body["counts"] == meta["counts_by_sense_and_level"]
    assert body["checksum"] == dictionary.checksum and len(body["checksum"]) == 64
    assert body["max_rack_letters"] == 7 and body["max_batch_words"] == 1000


def test_healthz(client: FlaskClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}
    assert response.headers["Cache-Control"] == "no-store"
    assert "ETag" not in response.headers


# -- HTTP errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/v1", "/v1/words/", "/v1/words/a/b", "/v2/words/taps", "/v1/racks/"])
def test_unknown_path_is_404(client: FlaskClient, path: str) -> None:
    assert_problem(client.get(path), 404, "about:blank")


@pytest.mark.parametrize("method, path, allowed", [
    ("DELETE", "/v1/deck", {"GET", "HEAD", "OPTIONS"}),
    ("POST", "/v1/words/taps", {"GET", "HEAD", "OPTIONS"}),
    ("GET", "/v1/words", {"POST", "OPTIONS"}),
    ("PUT", "/healthz", {"GET", "HEAD", "OPTIONS"}),
])
def test_wrong_method_is_405(client: FlaskClient, method: str, path: str, allowed: set[str]) -> None:
    response = client.open(path, method=method)
    assert_problem(response, 405, "about:blank")
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == allowed


def test_unexpected_error_is_500_without_traceback(client: FlaskClient, monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internal detail")

    for name in ("__call__", "write_one"):  # where every single word's verdict is written
        monkeypatch.setattr(verdict_text.VerdictWriter, name, broken)
    client = create_app(TEST_CONFIG).test_client()  # a new app: nothing answered from its verdict cache yet
    with caplog.at_level(logging.ERROR):
        response = client.get("/v1/words/taps")
    body = assert_problem(response, 500, "about:blank")
    assert "secret" not in response.get_data(as_text=True)
    assert "ETag" not in response.headers
    assert "secret internal detail" in caplog.text, "the error is logged for the operator"
    assert body["title"] == "Internal Server Error"


def test_no_debug_mode(app: Flask) -> None:
    assert app.debug is False
    assert app.config["PROPAGATE_EXCEPTIONS"] is not True


# -- headers: nosniff, CORS, caching --------------------------------------------------------------

ALL_KINDS_OF_REQUEST = [
    ("GET", "/v1/words/taps", None), ("GET", "/v1/words/t4ps", None), ("GET", "/v1/racks/tapsxe", None),
    ("GET", "/v1/deck", None), ("GET", "/v1/dictionary", None), ("GET", "/healthz", None),
    ("GET", "/openapi.json", None), ("GET", "/nowhere", None), ("DELETE", "/v1/deck", None),
    ("POST", "/v1/words", {"words": ["taps"]}), ("POST", "/v1/words", {"words": 1}),
    ("OPTIONS", "/v1/words", None),
]


@pytest.mark.parametrize("method, path, body", ALL_KINDS_OF_REQUEST)
def test_every_response_has_nosniff_and_cors(client: FlaskClient, method: str, path: str, body: Any) -> None:
    response = client.open(path, method=method, json=body)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    if response.status_code != 204:
        assert response.mimetype in (JSON, PROBLEM)


@pytest.mark.parametrize("path, methods", [("/v1/words", {"POST"}), ("/v1/words/taps", {"GET", "HEAD"}),
                                           ("/v1/racks/abc", {"GET"}), ("/openapi.json", {"GET"})])
def test_cors_preflight(client: FlaskClient, path: str, methods: set[str]) -> None:
    response = client.options(path, headers={"Origin": "https://example.org",
                                             "Access-Control-Request-Method": sorted(methods)[0],
                                             "Access-Control-Request-Headers": "content-type"})
    assert response.status_code == 204
    assert response.get_data() == b""
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert methods <= set(response.headers["Access-Control-Allow-Methods"].replace(" ", "").split(","))
    assert "content-type" in response.headers["Access-Control-Allow-Headers"].lower()
    assert int(response.headers["Access-Control-Max-Age"]) > 0


def test_preflight_on_unknown_path_is_404(client: FlaskClient) -> None:
    assert_problem(client.options("/v1/nothing"), 404)


@pytest.mark.parametrize("path", ["/v1/words/taps", "/v1/words/taps?level=80", "/v1/racks/tapsxe?limit=2",
                                  "/v1/deck", "/v1/dictionary", "/openapi.json"])
def test_get_has_etag_and_revalidates(client: FlaskClient, path: str) -> None:
    first = client.get(path)
    assert first.status_code == 200
    assert first.headers["Cache-Control"] == "public, max-age=86400"
    tag = first.headers["ETag"]
    assert tag.startswith('"') and tag.endswith('"') and len(tag) > 10
    for header in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        again = client.get(path, headers={"If-None-Match": header})
        assert again.status_code == 304, header
        assert again.get_data() == b""
        assert again.headers["ETag"] == tag
        assert again.headers["Cache-Control"] == "public, max-age=86400"
    stale = client.get(path, headers={"If-None-Match": '"stale"'})
    assert stale.status_code == 200 and stale.get_data() == first.get_data()


def test_etag_differs_by_request(client: FlaskClient) -> None:
    tags = {client.get(path).headers["ETag"] for path in
            ["/v1/words/taps", "/v1/words/tapS", "/v1/words/taps?level=80", "/v1/words/jazz", "/v1/racks/taps"]}
    assert len(tags) == 5


def test_errors_and_posts_carry_no_etag(client: FlaskClient) -> None:
    for response in (client.get("/v1/words/t4ps"), client.post("/v1/words", json={"words": ["taps"]}),
                     client.get("/v1/racks/a1")):
        assert "ETag" not in response.headers
        assert "public" not in response.headers.get("Cache-Control", "")
    not_modified = client.get("/v1/words/t4ps", headers={"If-None-Match": "*"})
    assert not_modified.status_code == 400, "an error is never a 304"


# -- configuration --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def other_dictionary_dir(tmp_path_factory: pytest.TempPathFactory, dictionary: Dictionary) -> Path:
    """A copy of the shipped dictionary with another version and checksum in its metadata."""
    out = tmp_path_factory.mktemp("other-dictionary")
    for file in Path(dictionary.path).iterdir():
        shutil.copy(file, out / file.name)
    meta = json.loads((out / "metadata.json").read_text())
    meta["version"] = "test-copy"
    meta["checksum"] = "0" * 64
    (out / "metadata.json").write_text(json.dumps(meta))
    return out


def test_env_then_mapping(monkeypatch: pytest.MonkeyPatch, dictionary: Dictionary, other_dictionary_dir: Path) -> None:
    monkeypatch.setenv("UW_LEVEL", "70")
    monkeypatch.setenv("UW_DICTIONARY", str(other_dictionary_dir))
    monkeypatch.delenv("UW_DECK", raising=False)
    from_env = create_app().test_client()
    assert from_env.get("/v1/words/flam").get_json()["legal"] is True
    info = from_env.get("/v1/dictionary").get_json()
    assert info["version"] == "test-copy" and info["checksum"] == "0" * 64 and info["default_level"] == 70
    overridden = create_app({"UW_LEVEL": 60, "UW_DICTIONARY": str(dictionary.path)}).test_client()
    assert overridden.get("/v1/words/flam").get_json()["legal"] is False
    assert overridden.get("/v1/dictionary").get_json()["checksum"] == dictionary.checksum


def test_etag_changes_with_the_dictionary(client: FlaskClient, other_dictionary_dir: Path) -> None:
    other = create_app({**TEST_CONFIG, "UW_DICTIONARY": str(other_dictionary_dir)}).test_client()
    assert other.get("/v1/words/taps").headers["ETag"] != client.get("/v1/words/taps").headers["ETag"]
    assert other.get("/v1/words/taps").get_json() == client.get("/v1/words/taps").get_json()


def test_etag_changes_with_the_default_level(client: FlaskClient) -> None:
    other = create_app({**TEST_CONFIG, "UW_LEVEL": 70}).test_client()
    assert other.get("/v1/words/taps").headers["ETag"] != client.get("/v1/words/taps").headers["ETag"]


def test_missing_dictionary_fails_at_start(tmp_path: Path) -> None:
    with pytest.raises(DictionaryError, match="metadata.json"):
        create_app({**TEST_CONFIG, "UW_DICTIONARY": str(tmp_path)})


@pytest.mark.parametrize("level", [61, "abc"])
def test_bad_default_level_fails_at_start(level: object) -> None:
    with pytest.raises(ValueError, match="UW_LEVEL"):
        create_app({**TEST_CONFIG, "UW_LEVEL": level})


def test_dictionary_opened_once_per_process(app: Flask, dictionary: Dictionary) -> None:
    again = create_app(TEST_CONFIG)
    assert again.extensions["word_service"].dictionary is app.extensions["word_service"].dictionary is dictionary


# -- the hand-written verdict serialiser ----------------------------------------------------------

def _reference_json(verdict: Any, deck: str) -> str:
    return json.dumps({**verdict.to_dict(), "deck": deck}, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("text", [*REASON_EXAMPLES.values(), "taps", "don't", "u.s.a.", "Caf\u00e9", "  jazz ",
                                  "o'neill", "a" * 64, "zzzzzzz", "ab"])
@pytest.mark.parametrize("level", [10, 60, 95])
def test_verdict_json_is_to_dict(dictionary: Dictionary, text: str, level: int) -> None:
    verdict = judge(dictionary, text, level)
    assert answers.verdict_json(verdict, "standard") == _reference_json(verdict, "standard")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzAEIOUZ'.\u00e9\u00fc "), min_size=1, max_size=12),
       level=st.sampled_from(LEVELS), deck=st.sampled_from([STANDARD, DOUBLE]))
def test_verdict_json_is_to_dict_for_any_word(dictionary: Dictionary, text: str, level: int, deck: Any) -> None:
    try:
        verdict = judge(dictionary, text, level, deck)
    except ValueError:
        return  # malformed input has no verdict
    assert answers.verdict_json(verdict, deck.name) == _reference_json(verdict, deck.name)


@pytest.mark.parametrize("if_none_match", [None, "matching", '"other"'])
@pytest.mark.parametrize("word", ["taps", "TAPS", "london", "jazz", "pontoons", "xyzzyq", "it", "a" * 64])
def test_fast_path_answers_exactly_as_the_flask_view(app: Flask, word: str, if_none_match: str | None) -> None:
    """The middleware's fast answer for a plain GET (or a revalidation) equals what the Flask view writes."""
    environ = get_environ(f"/v1/words/{word}")
    if if_none_match == "matching":
        if_none_match = app.test_client().get(f"/v1/words/{word}").headers["ETag"]
    if if_none_match is not None:
        environ["HTTP_IF_NONE_MATCH"] = if_none_match
    fast, flask_only = fast_and_flask(app, environ)
    assert fast[0] == flask_only[0] == ("304 NOT MODIFIED" if environ.get("HTTP_IF_NONE_MATCH", "").startswith('"')
                                        and environ["HTTP_IF_NONE_MATCH"] != '"other"' else "200 OK")
    assert fast[1:] == flask_only[1:]


def test_fast_health_answer_is_the_views(app: Flask) -> None:
    fast, flask_only = fast_and_flask(app, get_environ("/healthz"))
    assert fast[0] == flask_only[0] == "200 OK" and fast[1] == flask_only[1] == b'{"status":"ok"}'
    assert fast[2] == flask_only[2]


@pytest.mark.parametrize("url", ["/v1/words/taps?level=" + "6" * 5000, "/v1/racks/taps?limit=" + "9" * 5000])
def test_huge_numbers_in_the_query_are_400(client: FlaskClient, url: str) -> None:
    assert_problem(client.get(url), 400, None)


@pytest.mark.parametrize("level", [b"1e400", b"-1e400", b"Infinity", b"NaN"])
def test_infinite_levels_in_a_batch_are_400(client: FlaskClient, level: bytes) -> None:
    response = client.post("/v1/words", data=b'{"words":["taps"],"level":' + level + b"}",
                           content_type="application/json")
    assert_problem(response, 400, None)
