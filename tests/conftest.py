"""Shared fixtures: the real built dictionary, and a toy one built from a fixture SCOWL tree."""
from __future__ import annotations

from pathlib import Path

import pytest

from dictionaries.build import build
from dictionaries.dictionary import Dictionary, open_dictionary

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def dictionary() -> Dictionary:
    """The shipped dictionary (built from the real SCOWL)."""
    return open_dictionary()


@pytest.fixture(scope="session")
def toy_dictionary_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dictionary built from tests/data/scowl (a tiny SCOWL-shaped tree) and tests/data/overlay.txt."""
    out = tmp_path_factory.mktemp("toy-dictionary")
    build(DATA / "scowl", DATA / "overlay.txt", out, "toy")
    return out


@pytest.fixture(scope="session")
def toy_dictionary(toy_dictionary_dir: Path) -> Dictionary:
    return Dictionary(toy_dictionary_dir)
