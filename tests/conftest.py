"""Shared fixtures: the real built dictionary, a toy one built from fixture inputs, the word service
(``app``, ``client``, its OpenAPI ``document``), a games file (``db``) and a headless browser (``browser``).

Helpers that are not fixtures live beside it: ``cli_support`` (the referee's CLI in this process),
``service_fixtures`` (the service's test configuration and WSGI helpers), ``board_support`` (a board
in its own process, Chromium).

The toy inputs live in tests/data: a tiny SCOWL-shaped tree (scowl/), a toy WordNet database
(wordnet/), a frequency file shaped like what the build reads from wordfreq (frequencies.tsv)
and an overlay (overlay.txt).
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from postgres_support import backend, postgres_db, postgres_url  # noqa: F401 - the PostgreSQL fixtures (issue 25)

from dictionaries.dictionary import Dictionary, open_dictionary
from tools.build_dictionary import build
from tools.frequencies import Frequencies
from tools.wordnet import read_wordnet

DATA = Path(__file__).parent / "data"


def build_toy(out: Path, overlay: Path = DATA / "overlay.txt") -> dict[str, Any]:
    """Build the toy dictionary (with its definitions) into ``out``; return its metadata."""
    return build(DATA / "scowl", overlay, out, "toy", frequencies=Frequencies.from_file(DATA / "frequencies.tsv"),
                 wordnet=read_wordnet(DATA / "wordnet"))


@pytest.fixture(autouse=True)
def english_unless_asked(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test speaks English unless it asks for another language, whatever the machine's locale;
    a test that switches language (``--lang es``, ``UW_LANG=es``) leaves English behind it."""
    from dictionaries.i18n import set_language

    monkeypatch.setenv("UW_LANG", "en")
    set_language("en")
    yield
    set_language("en")


@pytest.fixture(scope="session")
def dictionary() -> Dictionary:
    """The shipped dictionary (built from the real SCOWL)."""
    return open_dictionary()


@pytest.fixture(scope="session")
def toy_dictionary_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dictionary built from the toy inputs in tests/data."""
    out = tmp_path_factory.mktemp("toy-dictionary")
    build_toy(out)
    return out


@pytest.fixture(scope="session")
def toy_dictionary(toy_dictionary_dir: Path) -> Dictionary:
    return Dictionary(toy_dictionary_dir)


@pytest.fixture(scope="session")
def catalog_problems() -> list[str]:
    """What ``tools/catalogs.py check`` finds wrong with the catalogs (it extracts every message of the
    code: once a session, for the tests of each package's catalog)."""
    pytest.importorskip("babel")
    from tools import catalogs

    return catalogs.problems()


@pytest.fixture(scope="session")
def app(dictionary: Dictionary) -> Flask:  # noqa: ARG001 - the shipped dictionary, opened once a session first
    """The service on the shipped dictionary, configured as in production (errors are answered, not raised)."""
    from service_fixtures import TEST_CONFIG

    from service.app import create_app

    return create_app(TEST_CONFIG)


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture(scope="module")
def document(app: Flask) -> dict[str, Any]:
    """The service's OpenAPI document, as served."""
    response = app.test_client().get("/openapi.json")
    assert response.status_code == 200
    data: dict[str, Any] = response.get_json()
    return data


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    """Where a test's games file goes (not created: a module's own ``db`` fixture may start a game in it)."""
    return tmp_path / "games.sqlite3"


@pytest.fixture
def apps() -> Iterator[list[Any]]:
    """The boards (Flask apps) a test makes and appends here: their change watchers are stopped after it."""
    from referee.board.runtime import runtime

    made: list[Any] = []
    yield made
    for app in made:
        runtime(app).watcher.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium, one per test module (board_support.chromium: Debian's chromium and chromedriver)."""
    from board_support import chromium

    with chromium() as driver:
        yield driver
