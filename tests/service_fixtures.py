"""Fixtures of the word service tests: the application and its test client.

Test modules import them (``from service_fixtures import app, client``); tests/conftest.py
stays as it is.
"""
from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app

#: A fixed configuration, whatever UW_* variables the developer's shell holds.
TEST_CONFIG = {"UW_LEVEL": 60, "UW_DICTIONARY": None, "UW_DECK": "standard"}


@pytest.fixture(scope="session")
def app(dictionary) -> Flask:  # noqa: ANN001 - the session fixture from conftest.py
    """The service on the shipped dictionary, configured as in production (errors are answered, not raised)."""
    return create_app(TEST_CONFIG)


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()
