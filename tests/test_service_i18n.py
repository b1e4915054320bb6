"""The word service in Spanish (issue 12): reasons' messages and problems follow Accept-Language,
Content-Language says which language was used, Vary and ETags keep caches right, codes never change,
and the service's Spanish catalog is complete."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from service_fixtures import TEST_CONFIG, fast_and_flask, get_environ

from dictionaries.deck import STANDARD
from dictionaries.dictionary import Dictionary
from dictionaries.i18n import Message, msg, say_in
from dictionaries.verdict import REASON_CODES, Reason, judge
from service import answers, verdict_text
from service.app import create_app
from service.core import request_language

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = "application/problem+json"
ES = {"Accept-Language": "es"}
EN = {"Accept-Language": "en"}


def spanish(response: Any) -> None:
    assert response.headers["Content-Language"] == "es", response.headers
    assert "Accept-Language" in response.headers.get("Vary", "")


# -- verdicts -------------------------------------------------------------------------------------

@pytest.mark.parametrize("word", ["jazz", "london", "it", "xyzzyq", "nasa"])
def test_a_refused_word_in_spanish_and_in_english(client: FlaskClient, dictionary: Dictionary, word: str) -> None:
    es, en = client.get(f"/v1/words/{word}", headers=ES), client.get(f"/v1/words/{word}", headers=EN)
    assert es.status_code == en.status_code == 200
    spanish(es)
    assert en.headers["Content-Language"] == "en" and en.headers["Vary"] == "Accept-Language"
    body_es, body_en = es.get_json(), en.get_json()
    reasons = judge(dictionary, word, 60, STANDARD).reasons
    assert reasons, "an example of a refused word"
    assert [r["code"] for r in body_es["reasons"]] == [r["code"] for r in body_en["reasons"]] == [r.code for r in reasons]
    assert [r["message"] for r in body_en["reasons"]] == [str(r.message) for r in reasons]
    assert [r["message"] for r in body_es["reasons"]] == [say_in(r.message, "es") for r in reasons]
    assert {k: v for k, v in body_es.items() if k != "reasons"} == {k: v for k, v in body_en.items() if k != "reasons"}


def test_reason_messages_are_translated_through_the_catalogs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever Message a verdict's reason carries is said in the request's language (here one of the
    service's own sentences stands in for the library's reasons, so the test does not depend on them)."""
    real_judge = judge

    def judged(*args: Any) -> Any:
        verdict = real_judge(*args)
        return verdict._replace(legal=False, reasons=(Reason("unknown", msg("Invalid word")),))

    monkeypatch.setattr(verdict_text, "judge", judged)
    monkeypatch.setattr(verdict_text.VerdictWriter, "__call__", verdict_text.VerdictWriter.full)  # judge every word
    monkeypatch.setattr(verdict_text.VerdictWriter, "write_all", lambda self, words: [self.full(w) for w in words])
    monkeypatch.setattr(verdict_text.VerdictWriter, "write_one", lambda self, word: self.full(word).encode())
    monkeypatch.setattr(verdict_text.VerdictWriter, "write_body", lambda *_: None)  # write_all's way
    client = create_app(TEST_CONFIG).test_client()  # a new app: an empty verdict cache
    es = client.get("/v1/words/taps", headers=ES).get_json()
    en = client.get("/v1/words/taps").get_json()
    assert es["reasons"] == [{"code": "unknown", "message": "Palabra no válida"}]
    assert en["reasons"] == [{"code": "unknown", "message": "Invalid word"}]
    batch = client.post("/v1/words", json={"words": ["taps"]}, headers=ES).get_json()["results"]
    assert batch[0]["reasons"][0]["message"] == "Palabra no válida"


def test_english_is_the_default_and_keeps_its_etag(app: Flask, client: FlaskClient) -> None:
    plain = client.get("/v1/words/jazz")
    assert plain.headers["Content-Language"] == "en" and plain.headers["Vary"] == "Accept-Language"
    service = app.extensions["word_service"]
    assert plain.headers["ETag"] == f'"{service.etag("/v1/words/jazz", b"")}"', "English ETags did not change"
    assert client.get("/v1/words/jazz", headers=EN).get_data() == plain.get_data()


@pytest.mark.parametrize("header, expected", [
    ("es", "es"), ("es-MX", "es"), ("ES-es", "es"), ("es_AR", "es"), ("en-GB", "en"),
    ("en;q=0.5, es;q=0.9", "es"), ("es;q=0.1, en", "en"), ("es;q=0", "en"), ("fr", "en"), ("de, fr;q=0.9", "en"),
    ("fr, es;q=0.3", "es"), ("*", "en"), ("*;q=0.1, es;q=0.2", "es"), ("", "en"), ("es;q=abc", "en"),
    ("en;q=0.8,es", "es"), (";;;,,,", "en"), ("es; q=0.5", "es"), ("zz" * 100, "en"),
])
def test_accept_language_with_q_values(client: FlaskClient, header: str, expected: str) -> None:
    assert request_language({"HTTP_ACCEPT_LANGUAGE": header}) == expected
    response = client.get("/v1/words/jazz", headers={"Accept-Language": header})
    assert response.status_code == 200
    assert response.headers["Content-Language"] == expected
    problem = client.get("/v1/words/j4zz", headers={"Accept-Language": header})
    assert problem.headers["Content-Language"] == expected
    assert problem.get_json()["title"] == {"es": "Palabra no válida", "en": "Invalid word"}[expected]


def test_an_unsupported_language_is_answered_in_english(client: FlaskClient) -> None:
    english = client.get("/v1/words/j4zz")
    french = client.get("/v1/words/j4zz", headers={"Accept-Language": "fr-FR, fr;q=0.9"})
    assert french.headers["Content-Language"] == "en"
    assert french.get_json() == english.get_json()
    verdict = client.get("/v1/words/jazz", headers={"Accept-Language": "fr"})
    assert verdict.headers["ETag"] == client.get("/v1/words/jazz").headers["ETag"], "the tag follows the language used"


def test_spanish_and_english_never_share_an_etag(client: FlaskClient) -> None:
    for path in ("/v1/words/jazz", "/v1/words/taps", "/v1/words/jazz?level=95", "/v1/words/jazz?define=true"):
        es, en = client.get(path, headers=ES), client.get(path)
        assert es.headers["ETag"] != en.headers["ETag"], path
        again = client.get(path, headers={**ES, "If-None-Match": es.headers["ETag"]})
        assert again.status_code == 304 and again.headers["ETag"] == es.headers["ETag"]
        assert again.headers["Vary"] == "Accept-Language", "a 304 carries the Vary of its 200"
        crossed = client.get(path, headers={**ES, "If-None-Match": en.headers["ETag"]})
        assert crossed.status_code == 200 and crossed.headers["Content-Language"] == "es", "an English copy is not revalidated for Spanish"
        assert client.get(path, headers={"If-None-Match": es.headers["ETag"]}).status_code == 200


@pytest.mark.usefixtures("app")
def test_the_verdict_cache_works_per_language() -> None:
    client = create_app(TEST_CONFIG).test_client()
    verdicts = client.application.extensions["word_service"].verdicts
    for _ in range(3):
        client.get("/v1/words/jazz?level=70", headers=ES)
        client.get("/v1/words/jazz?level=70")
    assert verdicts["es"].cache_info().hits == 2 and verdicts["es"].cache_info().misses == 1
    assert verdicts["en"].cache_info().hits == 2 and verdicts["en"].cache_info().misses == 1


@pytest.mark.parametrize("header", [None, "es", "es;q=0.9, en;q=0.1", "fr"])
@pytest.mark.parametrize("if_none_match", [None, "matching"])
@pytest.mark.parametrize("word", ["jazz", "taps", "it"])
def test_fast_path_answers_in_the_language_as_the_flask_view(app: Flask, word: str, if_none_match: str | None,
                                                             header: str | None) -> None:
    environ = get_environ(f"/v1/words/{word}")
    if header is not None:
        environ["HTTP_ACCEPT_LANGUAGE"] = header
    if if_none_match == "matching":
        environ["HTTP_IF_NONE_MATCH"] = app.test_client().get(f"/v1/words/{word}",
                                                              headers={"Accept-Language": header or ""}).headers["ETag"]
    fast, flask_only = fast_and_flask(app, environ)
    assert fast[0] == flask_only[0] == ("304 NOT MODIFIED" if if_none_match else "200 OK")
    assert fast[1:] == flask_only[1:]


def test_a_batch_in_spanish(client: FlaskClient, dictionary: Dictionary) -> None:
    response = client.post("/v1/words", json={"words": ["jazz", "taps"]}, headers=ES)
    assert response.status_code == 200
    spanish(response)
    jazz = response.get_json()["results"][0]
    reasons = judge(dictionary, "jazz", 60, STANDARD).reasons
    assert [(r["code"], r["message"]) for r in jazz["reasons"]] == [(r.code, say_in(r.message, "es")) for r in reasons]


# -- problems -------------------------------------------------------------------------------------

def test_a_problem_in_spanish(client: FlaskClient) -> None:
    es, en = client.get("/v1/words/t4ps", headers=ES), client.get("/v1/words/t4ps")
    assert es.status_code == en.status_code == 400 and es.mimetype == en.mimetype == PROBLEM
    spanish(es)
    assert en.headers["Content-Language"] == "en"
    body_es, body_en = es.get_json(), en.get_json()
    assert body_es["type"] == body_en["type"] == "urn:unspeakable-words:problem:invalid-word"
    assert body_es["status"] == body_en["status"] == 400
    assert body_es["title"] == "Palabra no válida" and body_en["title"] == "Invalid word"
    assert body_es["detail"].startswith("'t4ps' tiene caracteres que no son letras: '4'; envía solo letras")
    assert body_en["detail"].startswith("'t4ps' has characters that are not letters: '4'; send only letters")


#: Every kind of refusal the API gives: (method, path, JSON body or raw bytes).
REFUSALS: list[tuple[str, str, Any]] = [
    ("GET", "/v1/words/t4ps", None),
    ("GET", "/v1/words/%27%27", None),
    ("GET", "/v1/words/" + "a" * 65, None),
    ("GET", "/v1/words/taps?level=7", None),
    ("GET", "/v1/words/taps?level=x", None),
    ("GET", "/v1/words/taps?levl=60", None),
    ("GET", "/v1/words/taps?levl=60&dek=double", None),
    ("GET", "/healthz?x=1", None),
    ("GET", "/v1/words/taps?level=60&level=70", None),
    ("GET", "/v1/words/taps?define=yes", None),
    ("GET", "/v1/words/taps?deck=huge", None),
    ("GET", "/v1/racks/tap5", None),
    ("GET", "/v1/racks/" + "a" * 21, None),
    ("GET", "/v1/racks/taps?limit=0", None),
    ("GET", "/v1/nothing", None),
    ("DELETE", "/v1/deck", None),
    ("POST", "/v1/words", b"not json"),
    ("POST", "/v1/words", b"[" * 20 + b"]" * 20),
    ("POST", "/v1/words", []),
    ("POST", "/v1/words", {"words": ["taps"], "lvl": 60}),
    ("POST", "/v1/words", {"words": ["taps"], "lvl": 60, "dek": 1}),
    ("POST", "/v1/words", {"level": 60}),
    ("POST", "/v1/words", {"words": "taps"}),
    ("POST", "/v1/words", {"words": ["taps"] * 1001}),
    ("POST", "/v1/words", {"words": ["taps"], "level": "60"}),
    ("POST", "/v1/words", {"words": ["taps"], "level": 60.5}),
    ("POST", "/v1/words", {"words": ["taps"], "define": "yes"}),
    ("POST", "/v1/words", {"words": ["taps"], "deck": 2}),
    ("POST", "/v1/words", {"words": ["taps", 7]}),
    ("POST", "/v1/words", {"words": ["taps", None]}),
    ("POST", "/v1/words", {"words": ["taps", "t4ps"]}),
    ("POST", "/v1/words", {"words": ["taps", ""]}),
    ("POST", "/v1/words", b'{"words": ["' + b"a" * 70000 + b'"]}'),
]


@pytest.mark.parametrize("method, path, body", REFUSALS)
def test_every_refusal_speaks_spanish(client: FlaskClient, method: str, path: str, body: Any) -> None:
    """No English sentence reaches a Spanish client: the title and the detail differ from the English
    answer to the same request, while the status and the type are the same."""
    kwargs: dict[str, Any] = {"data": body, "content_type": "application/json"} if isinstance(body, bytes) else (
        {"json": body} if body is not None else {})
    es = client.open(path, method=method, headers=ES, **kwargs)
    en = client.open(path, method=method, **kwargs)
    assert es.status_code == en.status_code >= 400 and es.mimetype == PROBLEM
    spanish(es)
    body_es, body_en = es.get_json(force=True), en.get_json(force=True)
    assert (body_es["type"], body_es["status"]) == (body_en["type"], body_en["status"])
    assert body_es["title"] != body_en["title"], body_es
    assert body_es["detail"] != body_en["detail"], body_es
    assert not re.search(r"\b(send|the|must|got|words in)\b", body_es["detail"]), body_es["detail"]


def test_unexpected_error_in_spanish(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("secret internal detail")

    for name in ("__call__", "write_one"):  # where every single word's verdict is written
        monkeypatch.setattr(verdict_text.VerdictWriter, name, broken)
    response = create_app(TEST_CONFIG).test_client().get("/v1/words/taps", headers=ES)
    assert response.status_code == 500
    spanish(response)
    assert response.get_json()["title"] == "Error interno del servidor"
    assert "secret" not in response.get_data(as_text=True)


def test_a_damaged_dictionary_is_a_spanish_503(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.core import DictionaryDamaged

    app = create_app(TEST_CONFIG)
    service = app.extensions["word_service"]

    def damaged() -> None:
        raise DictionaryDamaged("words.levels changed")

    monkeypatch.setattr(service, "check_intact", damaged)
    for path in ("/healthz", "/v1/words/taps"):
        response = app.test_client().get(path, headers=ES)
        assert response.status_code == 503, path
        spanish(response)
        assert response.get_json()["title"] == "Servicio no disponible"
        assert "sumas de comprobación" in response.get_json()["detail"]


def test_answers_without_sentences_have_no_content_language(client: FlaskClient) -> None:
    for path in ("/healthz", "/v1/deck", "/v1/dictionary", "/v1/racks/taps"):
        response = client.get(path, headers=ES)
        assert response.status_code == 200
        assert "Content-Language" not in response.headers, path
        assert "Vary" not in response.headers, path
        assert response.headers["ETag" if path != "/healthz" else "Cache-Control"]
    assert client.get("/v1/racks/taps", headers=ES).headers["ETag"] == client.get("/v1/racks/taps").headers["ETag"]
    document = client.get("/openapi.json", headers=ES)
    assert document.headers["Content-Language"] == "en" and "Vary" not in document.headers


def test_a_cors_preflight_allows_accept_language(client: FlaskClient) -> None:
    response = client.options("/v1/words/taps", headers={"Origin": "https://example.org",
                                                        "Access-Control-Request-Method": "GET",
                                                        "Access-Control-Request-Headers": "accept-language"})
    assert "accept-language" in response.headers["Access-Control-Allow-Headers"].lower()


# -- the OpenAPI document -------------------------------------------------------------------------

def test_the_document_says_what_follows_accept_language(client: FlaskClient) -> None:
    document = client.get("/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    assert "Accept-Language" in schemas["Reason"]["properties"]["message"]["description"]
    assert "same in every language" in schemas["Reason"]["properties"]["code"]["description"]
    for field in ("title", "detail"):
        assert "Accept-Language" in schemas["Problem"]["properties"][field]["description"]
    assert "Content-Language" in document["info"]["description"] and "never change" in document["info"]["description"]
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert any(p["in"] == "header" and p["name"] == "Accept-Language" for p in operation["parameters"]), path
            for status, response in operation["responses"].items():
                if "application/problem+json" in response.get("content", {}):
                    assert "Content-Language" in response["headers"], (path, method, status)
    word = document["paths"]["/v1/words/{word}"]["get"]["responses"]
    assert {"Content-Language", "Vary", "ETag"} <= set(word["200"]["headers"])
    assert "Vary" in word["304"]["headers"]
    assert {"Content-Language", "Vary"} <= set(document["paths"]["/v1/words"]["post"]["responses"]["200"]["headers"])


# -- the catalog ----------------------------------------------------------------------------------

def _catalogs() -> Any:
    pytest.importorskip("babel")
    from tools import catalogs

    return catalogs


def test_the_spanish_catalog_of_the_service_is_complete_and_compiled(catalog_problems: list[str]) -> None:
    """Every sentence of the service's code is in service.po, translated, not fuzzy, and the .mo is
    compiled from it (tools/catalogs.py update, translate, compile)."""
    found = [p for p in catalog_problems if p.startswith("service/")]
    assert found == []


def test_the_spanish_sentences_keep_every_field() -> None:
    """A translation has exactly the {fields} of its English (a missing or misspelt one would break
    the sentence or raise a KeyError at the moment a client needs it)."""
    catalogs = _catalogs()
    catalog = catalogs.read(catalogs.po_path("service", "es"), "es")
    fields = re.compile(r"{([^{}]*)}")
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(fields.findall(ids[-1]))
        for text in strings:
            assert set(fields.findall(text)) == wanted, (message.id, text)
            text.format(**{name: "x" for name in wanted})


def test_no_other_catalog_shadows_the_services() -> None:
    """The languages' catalogs are chained (one translation per message id): every service sentence
    is said as service.po says it, not as another package's catalog would."""
    from dictionaries.i18n import translations

    catalogs = _catalogs()
    spanish = translations("es")
    for message in catalogs.read(catalogs.po_path("service", "es"), "es"):
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            for n, form in ((1, 0), (2, 2), (1_000_000, 1)):
                assert spanish.ngettext(message.id[0], message.id[1], n) == message.string[form], message.id
        else:
            assert spanish.gettext(message.id) == message.string, message.id


def test_no_service_sentence_bypasses_gettext() -> None:
    """An exception or problem sentence is never a bare string or an f-string: it goes through _,
    ngettext or msg (so Babel extracts it and the catalog translates it whole)."""
    offenders = []
    for path in sorted((ROOT / "service").glob("*.py")):
        if path.name == "openapi.py":  # the developers' document: English by design (and not extracted)
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                first = node.exc.args[0]
                if isinstance(first, ast.JoinedStr) or (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_every_reason_code_is_answered_in_both_languages(client: FlaskClient) -> None:
    from test_app import REASON_EXAMPLES

    for code in REASON_CODES:
        word = REASON_EXAMPLES[code].lower()
        es, en = client.get(f"/v1/words/{word}", headers=ES).get_json(), client.get(f"/v1/words/{word}").get_json()
        assert code in [r["code"] for r in es["reasons"]] and code in [r["code"] for r in en["reasons"]]
        assert all(isinstance(r["message"], str) and r["message"] for r in es["reasons"])


def test_message_values_reach_json_as_strings(dictionary: Dictionary) -> None:
    """A reason's message may be a Message (a str subclass): the verdict JSON writes it as text."""
    verdict = judge(dictionary, "jazz", 60, STANDARD)
    text = answers.verdict_json(verdict._replace(reasons=(Reason("deck_limit", msg("Invalid deck")),)), "standard", "es")
    assert '"message":"Mazo no válido"' in text
    assert isinstance(msg("Invalid deck"), Message)


# -- under gunicorn's gevent workers --------------------------------------------------------------

@pytest.mark.slow
def test_languages_do_not_leak_between_concurrent_requests_under_gunicorn() -> None:
    """The language lives in a context variable: under gevent workers, many connections at once, each
    asking in its own language, every answer is in the language its request asked for."""
    import http.client
    import json
    from concurrent.futures import ThreadPoolExecutor

    from reliability.common import Server

    titles = {"es": "Palabra no válida", "en": "Invalid word"}

    def conversation(index: int) -> list[str]:
        wrong = []
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        try:
            for turn in range(40):
                language = "es" if (index + turn) % 2 else "en"
                path = "/v1/words/t4ps" if turn % 3 == 0 else f"/v1/words/jazz?level={(60, 70, 80)[turn % 3]}"
                conn.request("GET", path, headers={"Accept-Language": language})
                response = conn.getresponse()
                body = json.loads(response.read())
                said = response.getheader("Content-Language")
                if said != language or (response.status == 400 and body["title"] != titles[language]):
                    wrong.append(f"{language} {path}: {said} {body}")
        finally:
            conn.close()
        return wrong

    with Server(workers=2) as server:
        with ThreadPoolExecutor(32) as pool:
            wrong = [w for ws in pool.map(conversation, range(64)) for w in ws]
    assert wrong == []


#: Each reason of test_app.REASON_EXAMPLES as a Spanish client reads it (the SCOWL sizes are the dictionary's, so
#: any number): a catalog that loses a translation sends the English sentence, which none of these matches.
SPANISH_REASONS = [
    ("too_short", r"IT tiene 2 letras; una palabra necesita al menos 3"),
    ("too_long", r"PONTOONS tiene 8 letras; en una mano solo caben 7"),
    ("proper_noun", r"LONDON es un nombre propio \(London, tamaño \d+ de SCOWL\)"),
    ("abbreviation", r"APTS es una abreviatura \(tamaño \d+ de SCOWL\)"),
    ("acronym", r"NASA es una sigla \(NASA, tamaño \d+ de SCOWL\)"),
    ("contraction", r"DONT es una contracción \(don't, tamaño \d+ de SCOWL\)"),
    ("phrase_piece", r"QUO es solo parte de una frase \(status quo\), no una palabra por sí sola"),
    ("uncommon", r"FLAM solo es una palabra a partir del tamaño \d+; esta partida admite hasta el tamaño 60"),
    ("unknown", r"XYZZY no está en el diccionario en ningún tamaño"),
    ("deck_limit", r"JAZZ necesita 2 Z; el mazo estándar tiene 1 Z"),
]


def test_no_reason_reaches_a_spanish_client_in_english(client: FlaskClient) -> None:
    """Every reason code's message, in Spanish, is the expected translation (the library's catalog)."""
    from test_app import REASON_EXAMPLES

    assert sorted(code for code, _ in SPANISH_REASONS) == sorted(REASON_CODES)
    for code, expected in SPANISH_REASONS:
        answer = client.get(f"/v1/words/{REASON_EXAMPLES[code].lower()}", headers=ES).get_json()
        said = {reason["code"]: reason["message"] for reason in answer["reasons"]}
        assert re.fullmatch(expected, said[code]), (code, said[code])


@pytest.mark.slow
def test_nginx_cache_of_deploy_conf_never_serves_the_other_language(tmp_path: Path) -> None:
    """Behind deploy/nginx.conf's proxy_cache (whose key holds the language nginx negotiated, en or es, the only
    one the replica is told): a cached Spanish verdict never reaches an English client."""
    import os
    import shutil
    import subprocess
    import time
    import urllib.error
    import urllib.request

    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    from reliability.common import Server, free_port

    with Server(workers=1) as replica:
        listen = free_port()
        conf = (ROOT / "deploy" / "nginx.conf").read_text()
        conf = re.sub(r"upstream uw_service \{[^}]*\}",
                      f"upstream uw_service {{ server 127.0.0.1:{replica.port}; keepalive 4; }}", conf)
        conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{listen};").replace("access_log access.log;", "access_log off;")
        (tmp_path / "tmp").mkdir()
        (tmp_path / "nginx.conf").write_text(conf)
        directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
        proc = subprocess.Popen([nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", directives],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            def get(path: str, language: str | None) -> tuple[str | None, str | None]:
                request = urllib.request.Request(f"http://127.0.0.1:{listen}{path}",
                                                 headers={"Accept-Language": language} if language else {})
                try:
                    with urllib.request.urlopen(request, timeout=5) as answer:
                        return answer.headers["Content-Language"], answer.headers["X-Cache-Status"]
                except urllib.error.HTTPError as error:
                    return error.headers["Content-Language"], error.headers["X-Cache-Status"]

            deadline = time.monotonic() + 30
            while True:
                try:
                    get("/healthz", None)
                    break
                except OSError:
                    assert time.monotonic() < deadline and proc.poll() is None, "nginx did not start"
                    time.sleep(0.2)
            statuses = []
            for path in ("/v1/words/jazz", "/v1/words/london", "/v1/words/t4ps"):
                for language, expected in (("es", "es"), (None, "en"), ("es", "es"), (None, "en"), ("en", "en"),
                                           ("es-MX", "es"), ("fr", "en"), ("en", "en")):
                    said, cache = get(path, language)
                    assert said == expected, (path, language, said, cache)
                    statuses.append(cache)
            assert "HIT" in statuses, "the cache was used"
        finally:
            proc.terminate()
            proc.wait(timeout=30)
