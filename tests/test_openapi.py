"""The OpenAPI document: valid 3.1, in step with the routes, and the responses match it.

schemathesis generates requests from the document (valid and invalid ones) and sends them
through the WSGI app: no 5xx, and every response must match its documented schema.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import schemathesis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from service_fixtures import TEST_CONFIG
from test_app import REASON_EXAMPLES

from dictionaries.verdict import REASON_CODES
from service.app import create_app

IGNORED_METHODS = {"HEAD", "OPTIONS"}


def test_document_is_valid_openapi_31(document: dict[str, Any]) -> None:
    definitions = pytest.importorskip("schemathesis.specs.openapi.definitions")
    assert document["openapi"].startswith("3.1")
    definitions.OPENAPI_31_VALIDATOR.validate(document)


def _route(rule: str) -> str:
    """A werkzeug rule as an OpenAPI path: /v1/words/<word> -> /v1/words/{word}."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


def test_document_and_url_map_in_step(app: Flask, document: dict[str, Any]) -> None:
    routes = {
        (_route(rule.rule), method.lower())
        for rule in app.url_map.iter_rules() if rule.endpoint != "static"
        for method in (rule.methods or set()) - IGNORED_METHODS
    }
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert routes == documented
    for path, item in document["paths"].items():
        names = set(re.findall(r"{([^}]+)}", path))
        for operation in item.values():
            in_path = {p["name"] for p in operation.get("parameters", ()) if p["in"] == "path"}
            assert in_path == names, path


def _validator(document: dict[str, Any], path: str, method: str, status: int, content_type: str) -> Any:
    """A validator for the documented response body (components inlined so local $refs resolve)."""
    response = document["paths"][path][method]["responses"][str(status)]
    schema = response["content"][content_type]["schema"]
    return jsonschema_rs.Draft202012Validator({**schema, "components": document["components"]})


def _check(document: dict[str, Any], path: str, method: str, response: Any) -> None:
    assert str(response.status_code) in document["paths"][path][method]["responses"], (path, response.status_code)
    _validator(document, path, method, response.status_code, response.mimetype).validate(response.get_json(force=True))


EXCHANGES = [
    *((("get", "/v1/words/{word}", f"/v1/words/{REASON_EXAMPLES[code].lower()}", None)) for code in REASON_CODES),
    ("get", "/v1/words/{word}", "/v1/words/taps", None),
    ("get", "/v1/words/{word}", "/v1/words/don't?level=95", None),
    ("get", "/v1/words/{word}", "/v1/words/t4ps", None),
    ("get", "/v1/words/{word}", "/v1/words/taps?level=1", None),
    ("get", "/v1/words/{word}", "/v1/words/a/b", None),
    ("get", "/v1/words/{word}", "/v1/words/taps?define=true", None),
    ("get", "/v1/words/{word}", "/v1/words/xyzzyq?define=true", None),
    ("get", "/v1/words/{word}", "/v1/words/taps?define=1", None),
    ("post", "/v1/words", "/v1/words", {"words": ["qat", "xyzzyq"], "define": True}),
    ("post", "/v1/words", "/v1/words", {"words": ["qat"], "define": "true"}),
    ("post", "/v1/words", "/v1/words", {"words": ["taps", "jazz", "u.s.a.", "it"], "level": 35}),
    ("post", "/v1/words", "/v1/words", {"words": "taps"}),
    ("post", "/v1/words", "/v1/words", {"words": ["taps"] * 20000}),
    ("get", "/v1/racks/{letters}", "/v1/racks/tapsxe?limit=5", None),
    ("get", "/v1/racks/{letters}", "/v1/racks/qqqq", None),
    ("get", "/v1/racks/{letters}", "/v1/racks/tapsxe?limit=0", None),
    ("get", "/v1/deck", "/v1/deck", None),
    ("get", "/v1/dictionary", "/v1/dictionary", None),
    ("get", "/healthz", "/healthz", None),
    ("get", "/openapi.json", "/openapi.json", None),
]


@pytest.mark.parametrize("method, template, url, body", EXCHANGES)
def test_responses_match_the_document(client: FlaskClient, document: dict[str, Any], method: str, template: str,
                                      url: str, body: Any) -> None:
    response = client.open(url, method=method.upper(), json=body)
    _check(document, template, method, response)


def test_validation_can_fail(client: FlaskClient, document: dict[str, Any]) -> None:
    """The schemas are strict enough to catch a wrong field (so the test above means something)."""
    verdict = client.get("/v1/words/taps").get_json()
    validator = _validator(document, "/v1/words/{word}", "get", 200, "application/json")
    validator.validate(verdict)
    for broken in ({**verdict, "extra": 1}, {**verdict, "score": "10"},
                   {**verdict, "reasons": [{"code": "nonsense", "message": "x"}]},
                   {k: v for k, v in verdict.items() if k != "legal"}):
        assert not validator.is_valid(broken)


def test_every_reason_code_is_documented(document: dict[str, Any]) -> None:
    assert document["components"]["schemas"]["Reason"]["properties"]["code"]["enum"] == list(REASON_CODES)


# -- schemathesis ---------------------------------------------------------------------------------

# Built at import: schemathesis.pytest.from_fixture breaks on pytest 9 (it writes Function._nodeid).
# The settings of the live-server run (reliability/schemathesis.toml): an invalid request may be refused
# with any status the service documents for refusals, 413 for a batch over 64 KiB among them.
schema = schemathesis.openapi.from_wsgi(
    "/openapi.json", create_app(TEST_CONFIG),
    config=SchemathesisConfig.from_path(str(Path(__file__).resolve().parent.parent / "reliability" / "schemathesis.toml")))


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=int(os.environ.get("SCHEMATHESIS_EXAMPLES", 30)), deadline=None,
          suppress_health_check=list(HealthCheck))
def test_schemathesis(case: Any) -> None:
    """Generated requests, valid and invalid: no 5xx, documented statuses, headers and bodies;
    every request the document forbids is refused (the schema and the code agree on words)."""
    case.call_and_validate()
