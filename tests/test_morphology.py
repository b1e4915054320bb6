"""The rule table that reads a spelling as a regular form of its base word (issue 19)."""
from __future__ import annotations

import pytest

from dictionaries.morphology import derivations, form_of, gradable, nonce_form, syllables

# A toy dictionary: legal bases and the parts of speech WordNet would give them.
TOY: dict[str, set[str]] = {
    "ankh": {"noun"}, "stale": {"adjective"}, "airy": {"adjective"}, "gab": {"verb", "noun"},
    "yip": {"verb"}, "chow": {"verb", "noun"}, "trial": {"noun", "verb"}, "ask": {"verb"},
    "doze": {"verb"}, "dank": {"adjective"}, "frail": {"adjective"}, "list": {"verb", "noun"},
    "sit": {"verb"}, "dial": {"verb", "noun"}, "type": {"verb", "noun"}, "paved": {"verb"},
    "baked": {"verb", "adjective"}, "loyal": {"adjective"}, "unique": {"adjective"}, "baby": {"noun", "adjective"},
    "carny": {"noun"}, "inseam": {"noun"}, "exurb": {"noun"}, "jumbo": {"noun", "adjective"},
    "coy": {"adjective"}, "blow": {"verb"}, "die": {"verb"}, "happy": {"adjective"}, "simple": {"adjective"},
    "table": {"noun"}, "wife": {"noun"}, "quick": {"adjective"}, "run": {"verb"},
    "rat": {"verb", "noun"}, "rate": {"verb", "noun"}, "hot": {"adjective"}, "snow": {"verb"},
}
IRREGULAR = {("blow", "verb"), ("wife", "noun"), ("good", "adjective")}


def rule_of(word: str) -> str | None:
    found = form_of(word, TOY.__contains__, lambda base: TOY.get(base, set()),
                    lambda base, part: (base, part) in IRREGULAR)
    return None if found is None else f"{found.rule}:{found.base}"


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("ankhs", "plural_or_third_person:ankh"), ("inseams", "plural_or_third_person:inseam"),
        ("carnies", "plural_or_third_person:carny"), ("jumbos", "plural_or_third_person:jumbo"),
        ("chowed", "past:chow"), ("gabbing", "present_participle:gab"), ("yipped", "past:yip"),
        ("trialed", "past:trial"), ("staler", "comparative:stale"), ("airier", "comparative:airy"),
        ("coyer", "comparative:coy"), ("dankly", "adverb:dank"), ("frailly", "adverb:frail"),
        ("asker", "agent:ask"), ("dozer", "agent:doze"), ("relist", "re:list"), ("resit", "re:sit"),
        ("redial", "re:dial"), ("retype", "re:type"), ("repaved", "re:paved"), ("unbaked", "un:baked"),
        ("happily", "adverb:happy"), ("simply", "adverb:simple"), ("happiest", "superlative:happy"),
    ],
)
def test_regular_forms_reach_their_base(word: str, expected: str) -> None:
    assert rule_of(word) == expected


@pytest.mark.parametrize(
    "word",
    [
        "loyaler", "uniquer",      # two-syllable adjectives that take "more"
        "babiest",                 # an exception of the comparative rule: BABY does not grade
        "blowed",                  # BLOW has irregular past forms
        "wifes",                   # WIFE's plural is WIVES
        "dieing",                  # a silent e goes before -ing: DYING
        "tabler", "tablely",       # a noun takes neither -er nor -ly
        "runly",                   # a verb takes no -ly
        "moss", "cactus",          # -ss and -us are no plurals
        "unankh", "reankh",        # prefixes need a verb or an adjective
        "ankhly",
        "hoter", "runed", "sited",  # a short closed base doubles: HOTTER, not HOTER
    ],
)
def test_nonce_and_wrong_class_forms_are_not_forms(word: str) -> None:
    assert rule_of(word) is None


def test_an_unknown_base_takes_inflections_but_not_derivations() -> None:
    legal = {"zorp"}.__contains__
    assert form_of("zorps", legal, lambda _base: set()) is not None
    assert form_of("zorped", legal, lambda _base: set()) is not None
    assert form_of("zorper", legal, lambda _base: set()) is None   # -er needs a known adjective or verb
    assert form_of("rezorp", {"zorp"}.__contains__, lambda _base: set()) is None


def test_a_base_must_be_legal() -> None:
    assert form_of("ankhs", lambda _base: False, lambda _base: {"noun"}) is None


@pytest.mark.parametrize(("word", "count"), [("stale", 1), ("simple", 2), ("happy", 2), ("loyal", 2), ("unique", 2),
                                             ("yip", 1), ("narrow", 2)])
def test_syllables(word: str, count: int) -> None:
    assert syllables(word) == count


def test_gradable_by_shape_with_exceptions() -> None:
    assert gradable("dank") and gradable("happy") and gradable("narrow") and gradable("simple")
    assert not gradable("loyal") and not gradable("unique") and not gradable("baby")


def test_derivations_spell_back_doubled_consonants_and_y() -> None:
    bases = {d.base for d in derivations("gabbing")}
    assert {"gab", "gabb"} <= bases
    assert "airy" in {d.base for d in derivations("airier")}
    assert "stale" in {d.base for d in derivations("staler")}
    assert "die" not in {d.base for d in derivations("dieing")} and "die" in {d.base for d in derivations("dying")}


@pytest.mark.parametrize("word", ["loyaler", "uniquer", "babiest"])
def test_nonce_comparatives_are_named(word: str) -> None:
    found = nonce_form(word, TOY.__contains__, lambda base: TOY.get(base, set()))
    assert found is not None and found.rule in ("comparative", "superlative")


@pytest.mark.parametrize("word", ["staler", "ankhs", "blowed", "zorped"])
def test_other_spellings_are_not_nonce_comparatives(word: str) -> None:
    assert nonce_form(word, TOY.__contains__, lambda base: TOY.get(base, set())) is None


def test_a_short_closed_base_doubles_its_consonant() -> None:
    """RATER is RATE + -R (one who rates), not RAT + -ER, which would be RATTER; W, X, Y never double."""
    assert rule_of("rater") == "agent:rate" and rule_of("ratter") == "agent:rat"
    assert rule_of("hotter") == "comparative:hot" and rule_of("snowed") == "past:snow"
    assert "rat" not in {d.base for d in derivations("rated")}
