"""Shared fixtures: the real built dictionary, and a toy one built from fixture inputs.

The toy inputs live in tests/data: a tiny SCOWL-shaped tree (scowl/), a toy WordNet database
(wordnet/), a frequency file shaped like what the build reads from wordfreq (frequencies.tsv)
and an overlay (overlay.txt).
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dictionaries.dictionary import Dictionary, open_dictionary
from tools.build_dictionary import Frequencies, build, read_wordnet

DATA = Path(__file__).parent / "data"


def build_toy(out: Path, overlay: Path = DATA / "overlay.txt") -> dict:
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


#: Tests that take seconds each (real processes, real servers, a browser, random games by the hundred).
#: They carry the ``slow`` marker: ``pytest -m "not slow"`` is the quick loop; ``make test`` runs them all.
SLOW_MODULES = ("test_reliability.py", "test_reliability_files.py", "test_reliability_service.py",
                "test_board_browser.py", "test_examples.py", "test_service_cli.py")
SLOW_TESTS = ("test_random_games_keep_the_rules", "test_rack_search_matches_brute_force", "test_schemathesis",
              "test_real_subprocess", "test_the_quick_path_loads_none_of_the_heavy_modules")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES or item.originalname in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
