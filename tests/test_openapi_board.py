"""The players' OpenAPI document (``/api/openapi.json``, referee/board/openapi.py) against the board that serves it
(issue 35, point 6): schemathesis generates requests from it, valid and invalid, and sends them through a hosted
board (SQLite) holding a table: no 5xx, every status and header documented, every body its schema, every 405 with
``Allow``. Before, it rejected 12 of the 13 operations for lack of path parameters; with them, 13 mismatches."""
from __future__ import annotations

import itertools
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from referee.board.app import create_app

HOST = "host-secret-of-the-openapi-tests-0123456789abcdef"
_FOLDER = tempfile.mkdtemp(prefix="uw-openapi-board-")
APP = create_app({"BOARD_DB": str(Path(_FOLDER) / "g.sqlite3"), "BOARD_GAME": None, "TESTING": True,
                  "BOARD_HOSTED": True, "BOARD_HOST_SECRET": HOST, "BOARD_STREAM_SECONDS": 0.2,
                  "BOARD_PROXIES": "127.0.0.1", "BOARD_PER_ADDRESS": 0})  # each case from an address of its own
_ADDRESSES = itertools.count(1)
_SERVED = APP.wsgi_app


def _from_the_proxy(environ: dict[str, Any], start_response: Any) -> Any:
    """schemathesis's WSGI calls name no peer: the requests come from the proxy (127.0.0.1), which forwards each
    case's own address."""
    environ["REMOTE_ADDR"] = environ.get("REMOTE_ADDR") or "127.0.0.1"
    return _SERVED(environ, start_response)


APP.wsgi_app = _from_the_proxy  # type: ignore[method-assign]
_TABLE = APP.test_client().post("/api/tables", json={"players": ["Ann", "Bob"], "dice": "virtual"}).get_json()


def _route(rule: str) -> str:
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


def test_every_api_route_and_its_path_parameters_are_documented() -> None:
    """Every /api/ route of a hosted board is in the document, and each operation names its path's parameters."""
    document = APP.test_client().get("/api/openapi.json").get_json()
    definitions = pytest.importorskip("schemathesis.specs.openapi.definitions")
    definitions.OPENAPI_31_VALIDATOR.validate(document)
    routes = {(_route(rule.rule).replace("{game_id}", "{id}").replace("{name}", "{seat}").replace("{rid}", "{request}"),
               method.lower())
              for rule in APP.url_map.iter_rules() if rule.rule.startswith("/api/") and "current" not in rule.rule
              and rule.rule not in ("/api/games", "/api/openapi.json")
              for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}}
    documented = {(path, method) for path, item in document["paths"].items() for method in item if method != "parameters"}
    assert routes == documented
    for path, item in document["paths"].items():
        names = set(re.findall(r"{([^}]+)}", path))
        for method, operation in item.items():
            if method == "parameters":
                continue
            given = [*item.get("parameters", ()), *operation.get("parameters", ())]
            assert {p["name"] for p in given if p["in"] == "path"} == names, (path, method)
            assert "405" in operation["responses"] and "Allow" in operation["responses"]["405"]["headers"]


def test_a_405_says_what_is_allowed() -> None:
    answer = APP.test_client().put(f"/api/games/{_TABLE['game']}/seats?code={_TABLE['code']}")
    assert answer.status_code == 405 and answer.mimetype == "application/problem+json"
    assert set(answer.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


schema = schemathesis.openapi.from_wsgi(
    "/api/openapi.json", APP,
    config=SchemathesisConfig.from_path(str(Path(__file__).resolve().parent.parent / "reliability" /
                                            "schemathesis-board.toml")))


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=int(os.environ.get("SCHEMATHESIS_EXAMPLES", 25)), deadline=None,
          suppress_health_check=list(HealthCheck))
def test_schemathesis_board(case: Any) -> None:
    """Generated requests, valid and invalid, with the table's join code: no 5xx, documented statuses, headers and
    bodies, every request the document forbids refused."""
    n = next(_ADDRESSES)  # in the case itself: the checks that send it again send these too
    case.headers = {**(case.headers or {}), "X-Forwarded-For": f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"}
    case.query = {**(case.query or {}), "code": _TABLE["code"]}
    case.call_and_validate()
