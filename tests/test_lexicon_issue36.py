"""Issue 36 on the shipped data: forms follow their base at every promotable size, each word's own definition
first, no GCIDE text (every word it defined still defined, by the project's own glosses), and reasons that
name what a word is. Each word the issue names is a case here."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from dictionaries import morphology
from dictionaries.definitions import open_definitions
from dictionaries.dictionary import Dictionary
from dictionaries.verdict import judge

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("word", ["birrs", "birred", "birring", "yarned", "yarning", "redos", "lavages", "modally",
                                  "movably", "helmed", "helming"])
def test_a_regular_form_of_a_legal_base_is_legal_whatever_size_scowl_gives_it(dictionary: Dictionary, word: str) -> None:
    assert judge(dictionary, word).legal, word


@pytest.mark.parametrize("word", ["blowed", "loyaler", "stoped", "quited", "latests", "heliums", "fastly", "saidest",
                                  "incests", "cookings", "duer", "sworded", "quiting", "wifes", "celling", "hysterias",
                                  "calligraphies", "nightlifes", "enoughs", "itchings"])
def test_the_guards_still_refuse_nonce_forms(dictionary: Dictionary, word: str) -> None:
    """BLOWED (BLOW has BLEW), LOYALER (LOYAL does not grade), STOPED (STOP doubles its P), QUITED (QU is a
    consonant: QUITTED), LATESTS (a superlative), HELIUMS (a substance), FASTLY (FAST is an adverb), SAIDEST;
    INCESTS (a one-sense mass noun written often, its plural never), COOKINGS (a gerund naming only the act),
    DUER (no DUEST: DUE does not grade), SWORDED and CELLING (SWORD and CELL are nouns only), QUITING (QUITE is
    no verb), WIFES (WIFE's plural is WIVES); HYSTERIAS, CALLIGRAPHIES, NIGHTLIFES, ENOUGHS (plurals SCOWL lists
    at 80 of nouns it lists at 40 or below that name no thing, written by nobody), ITCHINGS (a gerund of a
    feeling)."""
    assert not judge(dictionary, word).legal, word


@pytest.mark.parametrize("word", ["inkers", "sexers", "fossas", "areolas", "chrisms", "profaner", "knittings"])
def test_the_classes_rule_9_reads_now(dictionary: Dictionary, word: str) -> None:
    """INKERS, SEXERS (a legal agent noun's plural), FOSSAS, AREOLAS (a classical plural beside FOSSAE, AREOLAE),
    CHRISMS (no -ism), PROFANER (an agent, not a comparative), KNITTINGS (a gerund that names a thing); the
    last two are legal but for their length."""
    assert set(judge(dictionary, word).codes) <= {"too_long"}, word


@pytest.mark.parametrize("word", ["glitzed", "glitzes", "glitzing", "sheened", "lustred", "lustered", "brunted"])
def test_a_noun_of_attributes_whose_ed_and_ing_scowl_lists_is_a_verb(dictionary: Dictionary, word: str) -> None:
    """GLITZ, SHEEN, LUSTRE, LUSTER, BRUNT: WordNet has them only as nouns of attributes, SCOWL lists their -ed and
    -ing (``_verbed_nouns``), and a verb form leads with the project's own verb gloss. GLITZING and LUSTERED are
    legal but for their length."""
    assert set(judge(dictionary, word).codes) <= {"too_long"}, word
    if word.endswith("ed"):
        assert first(word)[0] == "verb", word


@pytest.mark.parametrize("word", ["thens", "meanwhiles", "meantimes", "sooths"])
def test_no_plural_of_an_adverb_of_time_nor_of_a_noun_whose_ed_is_another_verb_s(dictionary: Dictionary,
                                                                                  word: str) -> None:
    """THENS, MEANWHILES, MEANTIMES (``_time_adverb``: by then, in the meanwhile); SOOTHS (SOOTHED and SOOTHING are
    SOOTHE's, no evidence that SOOTH is a verb)."""
    assert not set(judge(dictionary, word).codes) <= {"too_long"}, word


def test_the_verbed_nouns_are_only_nouns_of_attributes_with_both_forms_listed() -> None:
    from types import SimpleNamespace
    from typing import Any, cast

    from tools.word_policy import _CODE, _verbed_nouns

    wordnet = cast(Any, SimpleNamespace(
        common={"glitz", "sword", "sheen", "soothe", "sooth"},
        senses={("glitz", "noun"): [1], ("sword", "noun"): [2], ("sheen", "noun"): [3], ("sooth", "noun"): [4],
                ("soothe", "verb"): [5]},
        lexfiles={("noun", 1): 7, ("noun", 2): 6, ("noun", 3): 7, ("noun", 4): 7},
        bases=lambda key, parts: [("verb", "soothe")] if key.startswith("sooth") and "verb" in parts else []))
    code = [_CODE[80], 0, 0, 0, 0]
    levels = {key: list(code) for key in ("glitzed", "glitzing", "sworded", "swording", "sheened", "soothed", "soothing")}
    assert _verbed_nouns(levels, wordnet) == {"glitz"}  # SWORD names a thing; SHEENING is not listed; SOOTHE's forms


def test_rule_9_s_spelling_helpers() -> None:
    from tools.word_policy import _abstract, _classical

    assert _abstract("deafness") and _abstract("racism") and not _abstract("chrism") and not _abstract("city")
    assert all(_classical(lemma, plural) for lemma, plural in (
        ("fossa", "fossae"), ("gyrus", "gyri"), ("taxon", "taxa"), ("index", "indices"), ("goy", "goyim"),
        ("stoma", "stomata"), ("beau", "beaux"), ("tempo", "tempi")))
    assert not any(_classical(lemma, plural) for lemma, plural in (("wife", "wives"), ("tooth", "teeth"), ("axis", "axes")))


def test_scowl_s_doubt_refuses_only_an_unwritten_plural_of_a_common_noun_that_names_no_thing() -> None:
    """``_doubted_plural``: a plural SCOWL lists at 80 of a noun it lists at 40 or below, all of whose WordNet
    senses are of uncounted kinds (9 is noun.cognition, 6 noun.artifact), that nobody writes, and no -TION noun."""
    from types import SimpleNamespace
    from typing import Any, cast

    from tools.word_policy import _CODE, _doubted_plural

    wordnet = cast(Any, SimpleNamespace(
        senses={("calligraphy", "noun"): [1], ("shirting", "noun"): [2], ("resuscitation", "noun"): [3]},
        lexfiles={("noun", 1): 9, ("noun", 2): 6, ("noun", 3): 4}))
    written = {"homeworks": 1.85}
    frequencies = cast(Any, SimpleNamespace(zipf=lambda word: written.get(word, 0.0)))

    def doubted(plural: str, base: str, size: int = 80, base_size: int = 35) -> bool:
        return _doubted_plural(_CODE[size], _CODE[base_size], plural, base, wordnet, frequencies)

    assert doubted("calligraphies", "calligraphy")
    assert not doubted("calligraphies", "calligraphy", base_size=50)  # SCOWL ranks the singular rare too
    assert not doubted("calligraphies", "calligraphy", size=70)
    assert not doubted("shirtings", "shirting")  # a thing: a fabric
    assert not doubted("resuscitations", "resuscitation")  # an act done one at a time
    wordnet.senses[("homework", "noun")] = [1]
    assert not doubted("homeworks", "homework")  # people write it


def test_form_of_can_be_limited_to_the_regular_forms() -> None:
    legal, parts = {"cat", "clump"}.__contains__, lambda _base: {"noun"}
    assert morphology.form_of("catlike", legal, parts) is not None
    assert morphology.form_of("catlike", legal, parts, rules=morphology.REGULAR_FORMS) is None
    assert morphology.form_of("cats", legal, parts, rules=morphology.REGULAR_FORMS) is not None


def first(word: str) -> tuple[str, str, str]:
    found = open_definitions().lookup(word)
    assert found, word
    return found[0].part_of_speech, found[0].text, found[0].source


@pytest.mark.parametrize(("word", "base"), [
    ("bees", "bee"), ("sines", "sine"), ("sites", "site"), ("runes", "rune"), ("robes", "robe"), ("canes", "cane"),
    ("tapes", "tape"), ("wines", "wine"), ("planes", "plane"), ("manes", "mane"), ("suites", "suite"),
    ("nodes", "node"), ("singes", "singe")])
def test_a_plural_in_es_leads_with_the_base_the_rule_table_reads(word: str, base: str) -> None:
    """BEES leads with the insect, not BE; SINES with the ratio, not SIN (WordNet's morphy strips -es too)."""
    shown = first(word)
    own = {(d.part_of_speech, d.text) for d in open_definitions().lookup(base)}
    assert shown[:2] in own, (word, shown)


def test_no_es_word_leads_with_the_shorter_word_unless_the_rule_table_reads_it(dictionary: Dictionary) -> None:
    """Of the legal -es words whose STEM+E and STEM are both legal, none leads with a sense of STEM only, unless
    the rule table reads STEM+ES too (PASSES: PASS, after a sibilant; DOES: DO, whose DO is too short to play)."""
    definitions = open_definitions()
    led_by_stem = []
    for key in dictionary._words.keys():
        if not re.fullmatch(r"[a-z]{4,7}es", key) or not judge(dictionary, key).legal:
            continue
        stem = key[:-2]
        if not (judge(dictionary, stem + "e").legal and judge(dictionary, stem).legal):
            continue
        shown = definitions.lookup(key)
        short = {(d.part_of_speech, d.text) for d in definitions.lookup(stem)}
        long = {(d.part_of_speech, d.text) for d in definitions.lookup(stem + "e")}
        if shown and (shown[0].part_of_speech, shown[0].text) in short - long:
            led_by_stem.append(key)
    assert all(key[:-2].endswith(("s", "x", "z", "ch", "sh", "o")) for key in led_by_stem), led_by_stem
    assert "passes" in led_by_stem  # the test reads them


def test_a_word_s_own_senses_and_verb_forms() -> None:
    assert first("coping")[:2] == ("verb", "come to terms with")  # COPE's, before the wall's top course
    for word, verb in (("guested", "to appear as a guest"), ("doled", "to give out"), ("doming", "to cover with a dome")):
        part, text, source = first(word)
        assert part == "verb" and text.startswith(verb) and source == "own glosses", (word, text)  # WordNet: nouns only
    assert first("nowadays")[:2] == ("adverb", "in these times")
    assert first("sriracha")[0] == "noun" and "chili" in first("sriracha")[1]


def test_every_word_gcide_defined_is_still_defined_by_wordnet_or_the_project(dictionary: Dictionary) -> None:
    """Each spelling GCIDE defined before issue 36 that is still a word (SHES is a contraction now) has a
    definition, and the function words whose WordNet senses are only names lead with their own."""
    definitions = open_definitions()
    words = [line for line in (ROOT / "tests" / "data" / "lexicon" / "gcide_defined.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    assert len(words) == 1390
    undefined = [word for word in words if not definitions.lookup(word) and (dictionary.senses(word) or b"\0")[0]]
    assert undefined == []
    assert not definitions.lookup("shes") and judge(dictionary, "shes").codes == ("contraction",)
    for word in ("from", "amid", "whither", "whereto", "mister", "quinoa", "drongo", "trug", "windrow", "who"):
        assert {d.source for d in definitions.lookup(word)} <= {"WordNet", "own glosses"}, word
    assert first("who")[0] == "pronoun" and first("us")[0] == "pronoun"  # not the WHO, not the United States


@pytest.mark.parametrize(("word", "codes", "says"), [
    ("lev", ["uncommon"], None), ("dorado", ["uncommon"], None), ("cummins", ["uncommon"], None),
    ("warcraft", ["too_long", "uncommon"], None), ("noir", [], None),
    ("terra", ["phrase_piece"], "terra firma"), ("toto", ["phrase_piece"], "in toto"),
    ("ngos", ["acronym"], "NGOS"), ("ngo", ["acronym"], "NGO"), ("gcse", ["acronym"], "GCSE"),
    ("gcses", ["acronym"], None), ("dems", ["abbreviation"], None), ("nvidia", ["proper_noun"], None),
    ("hes", ["contraction"], "he's"), ("shes", ["contraction"], "she's"),
])
def test_reasons_name_what_a_word_is(dictionary: Dictionary, word: str, codes: list[str], says: str | None) -> None:
    verdict = judge(dictionary, word)
    assert list(verdict.codes) == codes, (word, verdict.codes)
    if says is not None:
        assert says in str(verdict.reasons[-1].message), verdict.reasons[-1].message
