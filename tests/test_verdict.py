"""Verdicts on the real dictionary: legal words, every reason code, precedence, input errors."""
from __future__ import annotations

import pytest

from dictionaries.deck import DOUBLE
from dictionaries.dictionary import Dictionary
from dictionaries.errors import InvalidLevel, InvalidWord
from dictionaries.rules import success_chance
from dictionaries.verdict import REASON_CODES, judge

LEGAL = ["taps", "spat", "pats", "look", "champ", "top", "ten", "columns", "rum", "pontoon", "color", "colour",
         "cafe", "café", "TAPS", "Taps"]


@pytest.mark.parametrize("word", LEGAL)
def test_rulebook_words_are_legal(dictionary: Dictionary, word: str) -> None:
    verdict = judge(dictionary, word)
    assert verdict.legal, verdict.reasons
    assert verdict.reasons == ()
    assert verdict.word == word.upper().replace("É", "E")


@pytest.mark.parametrize(
    ("word", "codes"),
    [
        ("it", ["too_short"]),
        ("pontoons", ["too_long"]),
        ("london", ["proper_noun"]),       # a size-95 word but a size-50 proper noun
        ("dave", ["proper_noun"]),
        ("cthulhu", ["proper_noun"]),      # from the overlay
        ("blvd", ["abbreviation"]),
        ("apts", ["abbreviation"]),        # the rulebook's own example, from the overlay
        ("nasa", ["acronym"]),
        ("dont", ["contraction"]),
        ("don't", ["contraction"]),
        ("she's", ["contraction"]),        # the cards spell SHES, but the apostrophe names the contraction
        ("flam", ["uncommon"]),            # a size-70 word and a size-95 name
        ("xyzzyq", ["unknown", "deck_limit"]),
        ("jazz", ["deck_limit"]),
        ("kayak", ["deck_limit"]),
        ("e.g.", ["too_short", "abbreviation"]),
        ("zzzzzzzzz", ["too_long", "unknown", "deck_limit"]),
    ],
)
def test_reason_codes(dictionary: Dictionary, word: str, codes: list[str]) -> None:
    verdict = judge(dictionary, word)
    assert not verdict.legal
    assert list(verdict.codes) == codes
    assert all(code in REASON_CODES for code in verdict.codes)
    assert all(reason.message for reason in verdict.reasons)


def test_every_reason_code_is_reachable(dictionary: Dictionary) -> None:
    words = ["it", "pontoons", "london", "blvd", "nasa", "dont", "quo", "flam", "xyzzyq", "jazz"]
    seen = {code for word in words for code in judge(dictionary, word).codes}
    assert seen == set(REASON_CODES)


def test_messages_name_the_sense(dictionary: Dictionary) -> None:
    assert "don't" in judge(dictionary, "dont").reasons[0].message
    assert "size-70" in judge(dictionary, "flam").reasons[0].message
    assert "size 60" in judge(dictionary, "flam").reasons[0].message
    assert "London" in judge(dictionary, "london").reasons[0].message


@pytest.mark.parametrize(("word", "level", "legal"), [("flam", 60, False), ("flam", 70, True), ("flam", 95, True),
                                                       ("taps", 10, False), ("taps", 35, True), ("apts", 95, False)])
def test_level_changes_what_is_common(dictionary: Dictionary, word: str, level: int, legal: bool) -> None:
    assert judge(dictionary, word, level).legal is legal


def test_uncommon_word_below_its_level_is_uncommon(dictionary: Dictionary) -> None:
    assert judge(dictionary, "taps", 10).codes == ("uncommon",)


def test_verdict_fields(dictionary: Dictionary) -> None:
    data = judge(dictionary, "taps").to_dict()
    assert list(data) == ["word", "legal", "reasons", "score", "letters", "level", "success_chance"]
    assert data["score"] == 10
    assert data["letters"] == [{"letter": "T", "points": 2}, {"letter": "A", "points": 5},
                               {"letter": "P", "points": 3}, {"letter": "S", "points": 0}]
    assert data["level"] == 35
    assert data["success_chance"] == 0.55


def test_level_is_null_for_unknown_words(dictionary: Dictionary) -> None:
    assert judge(dictionary, "qqqxv").level is None


def test_double_deck_allows_jazz(dictionary: Dictionary) -> None:
    assert judge(dictionary, "jazz", deck=DOUBLE).legal


@pytest.mark.parametrize(("score", "chance"), [(0, 1.0), (1, 1.0), (2, 0.95), (10, 0.55), (19, 0.1), (20, 0.05),
                                               (21, 0.05), (40, 0.05)])
def test_success_chance_counts_the_passing_rolls(score: int, chance: float) -> None:
    # Direct count of the rolls 1..20 that pass: 20 always, otherwise roll >= score.
    passing = sum(1 for roll in range(1, 21) if roll == 20 or roll >= score)
    assert success_chance(score) == chance == passing / 20


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "empty"), ("   ", "empty"), ("ta2ps", "'2'"), ("taps!", "'!'"), ("a b", "' '"), ("x" * 65, "at most 64"),
     ("'.'", "no letters"), ("日本", "not letters")],
)
def test_input_errors_name_the_input(dictionary: Dictionary, text: str, message: str) -> None:
    with pytest.raises(InvalidWord, match=message):
        judge(dictionary, text)


def test_64_characters_is_still_judged(dictionary: Dictionary) -> None:
    assert judge(dictionary, "a" * 64).codes[0] == "too_long"


@pytest.mark.parametrize("level", [0, 61, "x", None.__class__, 60.5, True])
def test_bad_levels_are_input_errors(dictionary: Dictionary, level: object) -> None:
    with pytest.raises(InvalidLevel, match="not a SCOWL size"):
        judge(dictionary, "taps", level)  # type: ignore[arg-type]  # the wrong type the test expects to be refused


def test_level_may_be_a_numeric_string(dictionary: Dictionary) -> None:
    assert judge(dictionary, "flam", "70").legal


def test_the_runtime_records_have_the_checked_fields() -> None:
    """The verdict records are plain named tuples at run time and typed NamedTuples for the type
    checker (typing costs more to import than a word check): both name the same fields."""
    import ast
    from pathlib import Path

    from dictionaries.dictionary import RackWord
    from dictionaries.verdict import Reason, Verdict

    typed: dict[str, tuple[str, ...]] = {}
    for module in ("verdict", "dictionary"):
        tree = ast.parse((Path(__file__).parent.parent / "dictionaries" / f"{module}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name.startswith("_"):
                typed[node.name[1:]] = tuple(s.target.id for s in node.body
                                             if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name))
    assert typed == {"Reason": Reason._fields, "Verdict": Verdict._fields, "RackWord": RackWord._fields}
