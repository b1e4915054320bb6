"""The API as bots and apps see it (issue 14): the deck per request, strict parameters, messages that
say what to send, the document in step with what the code reads, the version and the changelog."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from service_fixtures import TEST_CONFIG

from dictionaries.deck import DOUBLE, STANDARD
from service.app import create_app
from service.core import BATCH_FIELDS, QUERY_PARAMETERS
from unspeakable_words import __version__

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = "application/problem+json"


def problem(response: Any, status: int = 400) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body: dict[str, Any] = response.get_json(force=True)
    return body


# -- the deck per request -------------------------------------------------------------------------

def test_word_with_the_double_deck(client: FlaskClient) -> None:
    standard = client.get("/v1/words/jazz").get_json()
    double = client.get("/v1/words/jazz?deck=double").get_json()
    assert (standard["legal"], standard["deck"]) == (False, "standard")
    assert standard["reasons"][0]["code"] == "deck_limit"
    assert (double["legal"], double["deck"], double["reasons"]) == (True, "double", [])
    assert client.get("/v1/words/jazz?deck=standard").get_json() == standard


def test_batch_with_the_double_deck(client: FlaskClient) -> None:
    body = client.post("/v1/words", json={"words": ["jazz", "taps"], "deck": "double"}).get_json()
    assert [(v["word"], v["legal"], v["deck"]) for v in body["results"]] == [("JAZZ", True, "double"),
                                                                             ("TAPS", True, "double")]
    default = client.post("/v1/words", json={"words": ["jazz"]}).get_json()["results"][0]
    assert (default["legal"], default["deck"]) == (False, "standard")


def test_rack_with_the_double_deck(client: FlaskClient) -> None:
    standard = client.get("/v1/racks/jazzq").get_json()
    double = client.get("/v1/racks/jazzq?deck=double").get_json()
    assert standard["deck"] == "standard" and double["deck"] == "double"
    assert "JAZZ" not in {w["word"] for w in standard["words"]}
    assert "JAZZ" in {w["word"] for w in double["words"]}


def test_deck_table_per_request(client: FlaskClient) -> None:
    assert client.get("/v1/deck?deck=double").get_json()["cards"] == DOUBLE.table()
    assert client.get("/v1/deck").get_json()["cards"] == STANDARD.table()


@pytest.mark.parametrize("url", ["/v1/words/jazz?deck=dubble", "/v1/racks/jazz?deck=Double", "/v1/deck?deck="])
def test_unknown_deck_is_400_naming_the_choices(client: FlaskClient, url: str) -> None:
    body = problem(client.get(url))
    assert body["type"] == "urn:unspeakable-words:problem:invalid-deck"
    assert "send one of standard, double" in body["detail"]


def test_a_custom_server_deck_is_offered_beside_the_built_ins(tmp_path: Path) -> None:
    (tmp_path / "club.json").write_text(json.dumps({"counts": {"Z": 3, "A": 10, "J": 1}}))
    client = create_app({**TEST_CONFIG, "UW_DECK": str(tmp_path / "club.json")}).test_client()
    assert client.get("/v1/words/jazz").get_json()["deck"] == "club"
    assert client.get("/v1/words/jazz?deck=standard").get_json()["legal"] is False
    info = client.get("/v1/dictionary").get_json()
    assert (info["decks"], info["default_deck"]) == (["standard", "double", "club"], "club")
    document = client.get("/openapi.json").get_json()
    assert document["components"]["schemas"]["DeckName"]["enum"] == ["standard", "double", "club"]


def test_a_deck_file_may_not_shadow_a_built_in_deck(tmp_path: Path) -> None:
    (tmp_path / "double.json").write_text(json.dumps({"A": 1}))
    with pytest.raises(ValueError, match="rename it"):
        create_app({**TEST_CONFIG, "UW_DECK": str(tmp_path / "double.json")})


# -- strict parameters; what the document says is what the code reads ------------------------------

def _operations(document: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """operationId -> (method, path, operation)."""
    return {op["operationId"]: (method, path, op)
            for path, item in document["paths"].items() for method, op in item.items()}


def _url(path: str) -> str:
    return path.replace("{word}", "taps").replace("{letters}", "tapsxe")


def test_documented_query_parameters_are_exactly_the_ones_the_code_reads(document: dict[str, Any]) -> None:
    operations = _operations(document)
    assert set(operations) == set(QUERY_PARAMETERS)
    for op_id, (_, _, operation) in operations.items():
        documented = [p["name"] for p in operation.get("parameters", ()) if p["in"] == "query"]
        assert documented == list(QUERY_PARAMETERS[op_id]), op_id


#: A value each query parameter refuses.
BAD_VALUE = {"level": "61", "deck": "dubble", "limit": "0", "define": "yes"}


@pytest.mark.parametrize("op_id", sorted(QUERY_PARAMETERS))
def test_every_documented_parameter_is_read_and_any_other_refused(client: FlaskClient, document: dict[str, Any],
                                                                   op_id: str) -> None:
    """The code reads each documented parameter (a bad value is a 400 naming it) and no other
    (an unknown one is a 400 naming it, not silently ignored)."""
    method, path, operation = _operations(document)[op_id]
    def send(url: str) -> Any:
        return client.post(url, json={"words": ["taps"]}) if method == "post" else client.get(url)

    for param in (p for p in operation.get("parameters", ()) if p["in"] == "query"):
        body = problem(send(f"{_url(path)}?{param['name']}={BAD_VALUE[param['name']]}"))
        assert param["name"] in body["detail"], (op_id, body)
    body = problem(send(f"{_url(path)}?dek=double"))
    assert "unknown query parameter 'dek'; send" in body["detail"], (op_id, body)
    assert sorted(BAD_VALUE) == sorted({p for params in QUERY_PARAMETERS.values() for p in params})


def test_two_unknown_parameters_are_named_in_the_plural(client: FlaskClient) -> None:
    detail = problem(client.get("/v1/words/taps?levl=60&dek=double"))["detail"]
    assert detail.startswith("unknown query parameters 'dek', 'levl'; send only level, deck")


def test_a_parameter_given_twice_is_refused(client: FlaskClient) -> None:
    assert "more than once" in problem(client.get("/v1/words/taps?level=60&level=95"))["detail"]


def test_documented_body_fields_are_exactly_the_ones_the_code_reads(client: FlaskClient,
                                                                   document: dict[str, Any]) -> None:
    schema = document["components"]["schemas"]["BatchRequest"]
    assert list(schema["properties"]) == list(BATCH_FIELDS) and schema["required"] == ["words"]
    for field, bad in {"words": "taps", "level": 61, "deck": "dubble", "define": "yes"}.items():
        body = problem(client.post("/v1/words", json={"words": ["taps"], field: bad}))
        assert field in body["detail"], (field, body)
    assert "unknown field in the body: 'lvl'" in problem(client.post("/v1/words", json={"words": [], "lvl": 60}))["detail"]


def test_limits_in_the_document_come_from_the_code(document: dict[str, Any]) -> None:
    from dictionaries.dictionary import MAX_RACK_LETTERS
    from dictionaries.verdict import MAX_INPUT_CHARS
    from service.core import MAX_BATCH_WORDS, MAX_BODY_BYTES, MAX_RACK_LIMIT, RACK_PATTERN, WORD_PATTERN

    schemas = document["components"]["schemas"]
    assert schemas["BatchRequest"]["properties"]["words"]["maxItems"] == MAX_BATCH_WORDS
    assert schemas["Word"]["maxLength"] == MAX_INPUT_CHARS and schemas["Word"]["pattern"] == WORD_PATTERN
    rack = document["paths"]["/v1/racks/{letters}"]["get"]["parameters"]
    assert rack[0]["schema"]["pattern"] == RACK_PATTERN and str(MAX_RACK_LETTERS) in RACK_PATTERN
    assert next(p for p in rack if p["name"] == "limit")["schema"]["maximum"] == MAX_RACK_LIMIT
    assert f"{MAX_BODY_BYTES // 1024} KiB" in document["paths"]["/v1/words"]["post"]["responses"]["413"]["description"]


# -- messages that name the real problem ----------------------------------------------------------

@pytest.mark.parametrize(("body", "expected"), [
    ({"words": ["taps"], "level": "70"}, "level must be an integer, got a string; send one of 10, 20"),
    ({"words": ["taps"], "level": None}, "level must be an integer, got null"),
    ({"words": ["taps"], "deck": 2}, "deck must be a string, got an integer; send one of standard, double"),
    ({"word": ["taps"]}, "unknown field in the body: 'word'; send only words, level, deck"),
    ({"level": 60}, 'the body has no "words" field; send {"words": '),
    ({"words": "taps"}, "words must be an array of strings, got a string; send"),
    ({"words": ["taps", 7]}, "words[1] must be a string, got an integer"),
    (["taps"], "the body must be a JSON object, got an array; send"),
])
def test_400s_name_the_problem_and_say_what_to_send(client: FlaskClient, body: Any, expected: str) -> None:
    detail = problem(client.post("/v1/words", json=body))["detail"]
    assert detail.startswith(expected), detail


def test_the_refused_value_is_never_offered_as_a_choice(client: FlaskClient) -> None:
    detail = problem(client.post("/v1/words", json={"words": [], "level": "70"}))["detail"]
    assert "'70' is not" not in detail and "got a string" in detail


@pytest.mark.parametrize("url", ["/v1/words/t4ps", "/v1/words/taps?level=61", "/v1/racks/ab1", "/v1/racks/tapsxe?limit=0",
                                 "/v1/words/taps?x=1", "/v1/words/" + "a" * 65, "/v1/racks/" + "a" * 21])
def test_every_400_says_what_to_send(client: FlaskClient, url: str) -> None:
    assert "send" in problem(client.get(url))["detail"]


# -- the contract: servers, version, changelog, policy --------------------------------------------

def test_document_has_servers_and_the_version(document: dict[str, Any]) -> None:
    assert document["servers"] and document["servers"][0]["url"] == "/"
    assert document["info"]["version"] == __version__


def test_dictionary_names_the_service_version(client: FlaskClient) -> None:
    assert client.get("/v1/dictionary").get_json()["service_version"] == __version__


def test_changelog_and_policy() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(r"^## \[?(Unreleased|" + re.escape(__version__) + r")", changelog, re.M)
    api = (ROOT / "docs" / "api.md").read_text()
    assert "## Versioning: what `/v1` promises" in api
    assert "CHANGELOG.md" in api
