"""Regular English word forms: which base word a spelling is a form of, by a rule table with its exceptions.

The build uses it so that a form SCOWL lists follows its base word (issue 19): ANKHS is legal because
ANKH is, STALER because STALE is an adjective that takes -er, RESIT because SIT is a verb. Each rule
names the suffix or prefix, how the base is spelled back (doubled consonants, y -> i, a dropped e) and
the parts of speech the base must have. ``form_of`` answers with the first derivation whose base is a
legal word of the right class, or None.

Nothing here knows a word list: the caller says which bases are legal and what WordNet says they are.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

VOWELS = frozenset("aeiou")
#: Parts of speech a rule may ask of its base (WordNet's names).
NOUN, VERB, ADJECTIVE = "noun", "verb", "adjective"


@dataclass(frozen=True)
class Derivation:
    """``form`` is ``rule`` applied to ``base``; the base must be one of ``needs`` (empty: any word)."""

    form: str
    base: str
    rule: str
    needs: tuple[str, ...]
    #: Whether the base's class must be known (True) or an unknown base will do (inflections of a
    #: word WordNet lacks: ANKHS from ANKH). Derivations that change the class need it known.
    strict: bool


# Suffix rules: (rule, suffix, parts of speech the base must have, strict).
# Every suffix is tried with each spelling-back of ``_stems``.
_SUFFIXES: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    ("plural_or_third_person", "s", (NOUN, VERB), False),
    ("past", "ed", (VERB,), False),
    ("present_participle", "ing", (VERB,), False),
    ("comparative", "er", (ADJECTIVE,), True),
    ("superlative", "est", (ADJECTIVE,), True),
    ("agent", "er", (VERB,), True),
    ("adverb", "ly", (ADJECTIVE,), True),
    # Derivations SCOWL lists that keep to their base's meaning (CATLIKE, FORKFUL, CLUMPY, KLUTZY):
    ("like", "like", (NOUN,), False),
    ("ful", "ful", (NOUN,), False),
    ("less", "less", (NOUN,), False),
    ("ness", "ness", (ADJECTIVE,), False),
    ("y_adjective", "y", (NOUN, VERB), False),
)
#: Rules whose base may be of any class when the form is listed (SCOWL writes CHOWED, TRIALED, JUMBOS:
#: English makes verbs and nouns of each other freely). Only the class-changing derivations check.
_ANY_CLASS: frozenset[str] = frozenset({"plural_or_third_person", "past", "present_participle"})
# Prefix rules: (rule, prefix, parts of speech the rest must have).
_PREFIXES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("re", "re", (VERB,)),
    ("un", "un", (ADJECTIVE, VERB)),
    ("out", "out", (VERB,)),
    ("over", "over", (VERB, ADJECTIVE)),
)
#: Adjectives that look gradable by their shape but whose -er/-est forms a table refuses (they take
#: "more"/"most", or their adjective sense does not grade): the exceptions of the comparative rule.
UNGRADABLE: frozenset[str] = frozenset({
    "baby", "army", "navy", "gilt", "mere", "prime", "main", "chief", "dead", "mock", "sole", "utter",
    "only", "own", "live", "ill", "real", "gold", "pet", "key", "top", "mass", "toy", "bay",
    "ruby", "ivory", "ebony", "said",  # SAIDEST: the adjective SAID (aforesaid) does not grade
})
#: Two-syllable adjectives with other endings that do take -er/-est, as Merriam-Webster inflects them
#: (EVILER, STUPIDER, ACUTER, OBTUSER, RAPIDER, VIVIDER, VERIEST).
GRADABLE: frozenset[str] = frozenset({
    "evil", "stupid", "cruel", "common", "quiet", "pleasant", "handsome", "acute", "astute", "even", "obtuse",
    "opaque", "rapid", "timid", "very", "vivid", "solid", "polite", "profound", "remote", "severe", "sincere",
    "secure", "mature", "obscure", "minute", "complete", "intense", "humane", "urbane", "inane",
    "insane", "serene", "sedate", "divine", "mellow", "shallow", "hollow", "yellow", "narrow",
})
#: Endings of two-syllable adjectives that take -er/-est (HAPPIER, NARROWER, SIMPLER, CLEVERER).
_TWO_SYLLABLE_ENDINGS: tuple[str, ...] = ("y", "ow", "le", "er", "ure", "et", "ite", "ne", "some", "ey")
_VOWEL_GROUP = re.compile(r"[aeiou]+y?|(?<!^)y(?![aeiou])")
#: A one-syllable spelling ending consonant, one vowel, one consonant (RAT, HOT, GAB): its final consonant
#: doubles before -ed, -er, -est, -ing. W, X and Y never double (SNOWED, BOXER, PLAYER).
_SHORT_CLOSED = re.compile(r"(?:qu|[^aeiou])+[aeiou][^aeiouwxy]")  # QU is a consonant: QUIT, QUITTED


def syllables(word: str) -> int:
    """A spelling's syllables, roughly: vowel groups, less a silent final e (STALE 1, SIMPLE 2)."""
    count = len(_VOWEL_GROUP.findall(word))
    if word.endswith("e") and not word.endswith(("ee", "ye")) and count > 1 and not re.search(r"[^aeiou]le$", word):
        count -= 1
    return max(count, 1)


def gradable(adjective: str) -> bool:
    """Whether an adjective takes -er/-est by its shape: one syllable, or two ending like HAPPY or NARROW.

    LOYAL, UNIQUE (two syllables, other endings) do not: LOYALER, UNIQUER are nonce forms.
    """
    if adjective in UNGRADABLE:
        return False
    if adjective in GRADABLE:
        return True
    n = syllables(adjective)
    return n == 1 or (n == 2 and adjective.endswith(_TWO_SYLLABLE_ENDINGS))


def _stems(word: str, suffix: str) -> list[str]:
    """Bases ``word`` may be ``suffix`` added to: plain (ASKS), with a dropped e (STALER), a doubled
    consonant (GABBING), y -> i (AIRIER), and -es after a sibilant or o (INSEAMS/BOXES/ECHOES)."""
    if not word.endswith(suffix) or len(word) - len(suffix) < 2:
        return []
    stem = word[:-len(suffix)]
    # A silent e goes before a vowel suffix (DYING not DIEING, STALER not STALEER), except -ing after
    # ee/oe/ye (SEEING, HOEING, DYEING).
    silent_e = stem.endswith("e") and suffix in ("ed", "er", "est", "ing") and not (
        suffix == "ing" and stem.endswith(("ee", "oe", "ye")))
    # A one-syllable base ending in one vowel and one consonant doubles it before a vowel suffix
    # (RATTER, HOTTEST): RATER is RATE + -R, not RAT + -ER.
    doubles = suffix in ("ed", "er", "est", "ing") and _SHORT_CLOSED.fullmatch(stem) is not None
    found = [] if silent_e or doubles else [stem]
    if suffix == "s":
        if stem.endswith("e") and stem[:-1].endswith(("s", "x", "z", "ch", "sh", "o")):
            found.append(stem[:-1])  # BOXES, ECHOES
        if stem.endswith("ie") and len(stem) > 3 and stem[-3] not in VOWELS:
            found.append(stem[:-2] + "y")  # CARNIES
        return found
    if suffix in ("like", "ful", "less", "ness"):
        if suffix == "ness" and stem.endswith("i"):
            found.append(stem[:-1] + "y")  # HAPPINESS
        return found
    if suffix == "y":
        if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in VOWELS:
            found.append(stem[:-1])  # NUTTY
        found.append(stem + "e")  # SMOKY
        return found
    if suffix == "ly":
        if stem.endswith("i"):
            found.append(stem[:-1] + "y")  # HAPPILY
        if stem.endswith("b") or stem.endswith("p") or stem.endswith("t") or stem.endswith("d"):
            found.append(stem + "le")  # SIMPLY, GENTLY
        if stem.endswith("ical"):
            found.append(stem[:-2])  # BASICALLY
        return found
    # -ed, -ing, -er, -est
    if suffix != "ing":
        found.append(stem + "e")  # STALER, RETYPED
        if stem.endswith("i") and len(stem) > 2 and stem[-2] not in VOWELS:
            found.append(stem[:-1] + "y")  # AIRIER, TRIED
            found.append(stem[:-1] + "ey")  # DICIER (DICEY), PRICIER
    else:
        found.append(stem + "e")  # RESTYLING
        if stem.endswith("y") and len(stem) >= 2:
            found.append(stem[:-1] + "ie")  # DYING
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in VOWELS and stem[-1] not in "wxy":
        found.append(stem[:-1])  # GABBING, YIPPED, DIMMER
    return found


def derivations(word: str) -> list[Derivation]:
    """Every way the rule table can read ``word`` as a regular form of a shorter word."""
    found: list[Derivation] = []
    for rule, suffix, needs, strict in _SUFFIXES:
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            continue  # MOSS, CACTUS, ANALYSIS are not plurals of MOS, CACTU, ANALYSI
        for base in _stems(word, suffix):
            found.append(Derivation(word, base, rule, needs, strict))
    for rule, prefix, needs in _PREFIXES:
        rest = word[len(prefix):]
        if word.startswith(prefix) and len(rest) >= 3:
            found.append(Derivation(word, rest, rule, needs, True))
    return found


def no_irregular_forms(_base: str, _part: str) -> bool:
    """The default for ``irregular``: no base has an irregular form (tests and toy inputs)."""
    return False


#: Rules whose regular form a base with an irregular one does not take (BLOWED, GOODER).
IRREGULAR_RULES: dict[str, str] = {"past": VERB, "comparative": ADJECTIVE, "superlative": ADJECTIVE}


#: The regular forms a table plays wherever the word list holds them once their base is legal (issue 36):
#: plurals and -s, -ed, -ing, -er/-est of an adjective that grades, -ly of an adjective, agent -er.
REGULAR_FORMS: frozenset[str] = frozenset({"plural_or_third_person", "past", "present_participle", "comparative",
                                           "superlative", "agent", "adverb"})


def form_of(word: str, legal: Callable[[str], bool], parts: Callable[[str], Iterable[str]],
            irregular: Callable[[str, str], bool] = no_irregular_forms,
            rules: frozenset[str] | None = None) -> Derivation | None:
    """The first derivation of ``word`` from a legal base of the class its rule needs, or None.

    ``legal(base)`` says whether the base is a legal word; ``parts(base)`` gives the parts of speech
    WordNet knows it in (its own or as a form of a lemma: PAVED is a verb); ``irregular(base, part)``
    whether the base has irregular forms in that part of speech (BLOW: BLEW, BLOWN), which then
    replace the regular -ed, -er, -est. A comparative or superlative also needs a ``gradable`` base.
    ``rules`` (None: all) limits the derivations tried to those rules (REGULAR_FORMS).
    """
    for derivation in derivations(word):
        base = derivation.base
        if base == word or (rules is not None and derivation.rule not in rules) or not legal(base):
            continue
        if derivation.rule in IRREGULAR_RULES and irregular(base, IRREGULAR_RULES[derivation.rule]):
            continue
        if derivation.rule == "plural_or_third_person" and irregular(base, NOUN) and VERB not in set(parts(base)):
            continue  # WIFES: WIFE's plural is WIVES
        known = set(parts(base))
        if derivation.rule in ("comparative", "superlative") and not gradable(base):
            continue
        if derivation.rule in _ANY_CLASS:
            return derivation
        if known:
            if not known & set(derivation.needs):
                continue
        elif derivation.strict and not (derivation.rule in ("comparative", "superlative") and base.endswith("y")):
            continue  # a comparative of an unknown -y adjective is one (DORKIER, WUSSIER)
        return derivation
    return None


def nonce_form(word: str, legal: Callable[[str], bool], parts: Callable[[str], Iterable[str]],
               irregular: Callable[[str, str], bool] = no_irregular_forms) -> Derivation | None:
    """The derivation that makes ``word`` a nonce form a table refuses, or None.

    A nonce form reads as a regular form of a legal base that the rule table refuses: a comparative
    or superlative of an adjective that does not grade (LOYALER, UNIQUER, BABIEST, CHIEFER) or that has
    irregular ones (GOODER). Call it for a spelling ``form_of`` found no derivation for.
    """
    for derivation in derivations(word):
        base = derivation.base
        if base == word or not legal(base):
            continue
        known = set(parts(base))
        if (derivation.rule in ("comparative", "superlative") and (ADJECTIVE in known or base.endswith("y"))
                and not base.endswith(("ed", "er", "est"))  # DARNEDEST, an idiom; GAMESTER
                and (not gradable(base) or irregular(base, ADJECTIVE))):
            return derivation
    return None
