"""Build the compact word data from SCOWL, a frequency list and WordNet, plus the overlay.

    python -m tools.build_dictionary [--scowl /usr/share/dict/scowl] [--wordnet /usr/share/wordnet]
                                   [--frequencies wordfreq] [--gcide /usr/share/dictd]
                                   [--overlay dictionaries/overlay.txt] [--out dictionaries/data]

Build-time inputs only (none is needed at run time): Debian's ``scowl``, ``wordnet-base`` and ``dict-gcide``
packages and the ``wordfreq`` package (``pip install '.[build]'``). The word policy is SCOWL's
levels moved by how often people write a spelling today (see ``apply_policy`` and LEVELS.md);
the overlay has the last word. The output is deterministic: the same inputs give byte-identical files.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import struct
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import marisa_trie

from dictionaries import (
    DATA_DIR,
    DATA_FILES,
    DEFAULT_LEVEL,
    DEFINITION_FILES,
    DEFINITION_ID_BYTES,
    DEFINITIONS_MAGIC,
    DEFINITIONS_TEXT,
    DEFINITIONS_TRIE,
    FORMAT_VERSION,
    FORMS_TRIE,
    GCIDE_FLAG,
    LEVELS,
    MAX_WORD_LETTERS,
    METADATA,
    NODE_FORMAT,
    PARTS_OF_SPEECH,
    PHRASE_PIECE,
    PHRASE_PIECE_INDEX,
    RACKS_NODES,
    RACKS_TRIE,
    RACKS_WORDS,
    SENSES,
    WORD_ID_FORMAT,
    WORDNET_PARTS,
    WORDS_LEVELS,
    WORDS_TRIE,
    morphology,
)
from tools.gcide import DEFAULT_GCIDE, Gcide, GcideError, read_gcide

#: Spellings whose lists count at their own sizes (COLOR and COLOUR both play).
SPELLINGS: tuple[str, ...] = ("english", "american", "british", "british_z", "canadian", "australian", "variant_1")
#: Spelling variants SCOWL keeps apart (DONUT, SNUCK): their words enter at size 95 whatever their
#: size, so they count as common only where the frequency signal says people write them.
RARE_SPELLINGS: tuple[str, ...] = (
    "variant_2", "variant_3", "british_variant_1", "british_variant_2",
    "canadian_variant_1", "canadian_variant_2", "australian_variant_1", "australian_variant_2",
)
#: Rare lists whose words at the default size or below count at their own size (issue 19).
BRITISH_VARIANTS: tuple[str, ...] = ("british_variant_1", "british_variant_2")
#: What an overlay line may say a spelling is: a sense, a piece of a phrase (a word sense at that size
#: whose verdict names the phrase) or unknown (left out: not in the dictionary at all).
OVERLAY_SENSES: tuple[str, ...] = (*SENSES, PHRASE_PIECE, "unknown")
CATEGORIES: tuple[str, ...] = ("words", "proper-names", "upper", "abbreviations", "contractions")
DEFAULT_SCOWL = Path("/usr/share/dict/scowl")
DEFAULT_WORDNET = Path("/usr/share/wordnet")
DEFAULT_OVERLAY = Path(DATA_DIR).parent / "overlay.txt"
SOURCE = "SCOWL (Spell Checker Oriented Word Lists) by Kevin Atkinson, Debian package scowl"
_SPELLING_RE = re.compile(r"[A-Za-z.']+")
_FILE_RE = re.compile(r"^(?P<spelling>[a-z_0-9]+)-(?P<category>[a-z-]+)\.(?P<size>\d+)$")
_OVERLAY_RE = re.compile(r"^(?P<key>[a-z]+)\s+(?P<sense>[a-z_]+)\s+(?P<level>\d+)\s+#\s*(?P<why>\S.*)$")
_KEY_RE = re.compile(r"[a-z]+")
_COMPOUND_RE = re.compile(r"[a-z]+(?:[-_][a-z]+)+")
_UNIT_RE = re.compile(r"(?:a|the|an)\s+(?:\S+\s+)?unit of\b")
#: What a contraction's apostrophe stands for (I've, G'day), as against a name's (Qur'an, L'Aquila).
_CONTRACTED_RE = re.compile(r"'(?:ve|m|d|ll|re|s|t|day)$|n't$")
_ROMAN_RE = re.compile(r"m*(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})")
_CAPITALISED_RE = re.compile(r"[A-Za-z]*[A-Z][A-Za-z]*")

# -- the word policy (LEXICON.md explains each number) ---------------------------------------------
#: Zipf frequency (log10 of uses per billion words) from which a spelling is "written often today".
COMMON_ZIPF = 3.0
#: A spelling above the default level written this often is promoted (rule 2): a word WordNet knows in
#: lower case whatever other languages write, another only when it is not written more elsewhere.
PROMOTE_ZIPF = 2.5
WORDNET_ZIPF = 2.0
#: Below this Zipf frequency a default-level word is rare enough to need WordNet's word that it exists.
RARE_ZIPF = 2.0
#: A spelling this much more frequent in French, Spanish, German, Italian or Portuguese is a foreign
#: word in English text (NOIR, VIVO): its English frequency does not promote it.
FOREIGN_MARGIN = 0.5
FOREIGN_LANGUAGES: tuple[str, ...] = ("fr", "es", "de", "it", "pt")
#: Levels the frequency signal may lift to the default (size 95 is SCOWL's bin of doubtful forms).
PROMOTABLE_LEVELS: tuple[int, ...] = (70, 80)
#: SCOWL's size of doubtful entries, where a spelling people write but WordNet does not know is left out (rule 4).
DOUBTFUL_LEVEL = 95
#: A size-80 spelling WordNet does not know that people write in English (Zipf >= RARE_ZIPF) but this
#: much more in one of FOREIGN_LANGUAGES is a foreign word SCOWL filed as English (AVENIR, PROJET): left
#: out (rule 7). Size 70 is left alone: there such spellings are mostly loanwords English dictionaries
#: list (OLIO, CHEZ, DELE); so are the rarer ones at 80 (SEMBLE, VOLTI, DURE).
FOREIGN_WORD_MARGIN = 2.5
FOREIGN_WORD_LEVEL = 80
#: Senses shown per part of speech.
DEFINITIONS_PER_PART = 3

_CODE = {size: i + 1 for i, size in enumerate(LEVELS)}
DEFAULT_CODE = _CODE[DEFAULT_LEVEL]
DEMOTED_CODE = DEFAULT_CODE + 1  # the next size: still a word, just not at the default level


class BuildError(Exception):
    """The inputs cannot be built (names the file and line)."""


@dataclass(frozen=True)
class Entry:
    key: str      # a-z only, lower case
    sense: str    # one of SENSES
    form: str     # the spelling as written (accents folded)


def fold(text: str) -> str:
    """Drop accents (café -> cafe); other characters are left as they are."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def classify(raw: str, category: str) -> Entry | None:
    """What one SCOWL entry means for the game, or None when it is not a spelling we keep.

    Possessives ('s) are dropped. SCOWL's contraction and abbreviation lists say what their entries
    are (I'm, Ltd.); elsewhere capitalisation decides before punctuation: an all-capital entry (or
    its plural, CDs) is an acronym and a capitalised one a proper noun whatever apostrophe it carries
    (O'Brien); a lower-case apostrophe marks a contraction (o'clock).
    """
    text = fold(raw.strip())
    if not text or not _SPELLING_RE.fullmatch(text):
        return None  # not a plain a-z spelling even after folding accents
    if text.endswith("'s") or text.endswith("s'"):
        return None  # a possessive, never a playable word
    key = re.sub(r"[.']", "", text).lower()
    if not key:
        return None
    letters = re.sub(r"[.']", "", text)
    if category == "contractions":
        sense = "contraction"
    elif (letters.isupper() and len(letters) > 1) or (letters[-1] == "s" and letters[:-1].isupper() and len(letters) > 2):
        sense = "acronym"  # NASA, and the plural CDs
    elif category == "abbreviations":
        sense = "abbreviation"
    elif category == "proper-names" or letters[0].isupper():
        sense = "proper_noun"
    elif "'" in text:
        sense = "contraction"
    else:
        sense = "word"
    return Entry(key, sense, text)


def scowl_files(scowl: Path) -> list[tuple[str, str, int, Path]]:
    """(spelling, category, size, path) of the SCOWL files that count, sorted.

    Rare spellings count only for their word lists (a variant's proper names add nothing).
    """
    if not scowl.is_dir():
        raise BuildError(f"{scowl}: no SCOWL word lists here (install Debian's 'scowl' package)")
    found = []
    for path in sorted(scowl.iterdir()):
        match = _FILE_RE.match(path.name)
        if not match:
            continue
        spelling, category, size = match["spelling"], match["category"], int(match["size"])
        if size not in LEVELS or category not in CATEGORIES:
            continue
        if spelling in SPELLINGS or (spelling in RARE_SPELLINGS and category == "words"):
            found.append((spelling, category, size, path))
    if not any(spelling in SPELLINGS for spelling, *_ in found):
        raise BuildError(f"{scowl}: no files named <spelling>-<category>.<size> for {', '.join(SPELLINGS)}")
    return found


def read_overlay(path: Path) -> dict[str, list[tuple[str, int, str]]]:
    """key -> [(sense, level, why)]. Every line needs a comment saying why."""
    overlay: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _OVERLAY_RE.match(stripped)
        if not match:
            raise BuildError(f"{path}:{number}: expected 'word sense level  # why', got {line!r}")
        sense, level = match["sense"], int(match["level"])
        if sense not in OVERLAY_SENSES:
            raise BuildError(f"{path}:{number}: sense {sense!r} is not one of {', '.join(OVERLAY_SENSES)}")
        if level not in LEVELS:
            raise BuildError(f"{path}:{number}: level {level} is not a SCOWL size {LEVELS}")
        overlay[match["key"]].append((sense, level, match["why"].strip()))
    return overlay


# -- frequencies ------------------------------------------------------------------------------------

class Frequencies:
    """Zipf frequencies of lower-case spellings: English, and the best of a few other languages.

    Either the ``wordfreq`` package (``Frequencies.from_wordfreq()``) or a small tab-separated file
    of ``word<TAB>language<TAB>zipf`` lines (the tests' toy input).
    """

    def __init__(self, english: dict[str, float], foreign: dict[str, float] | None, source: dict[str, Any],
                 foreign_lookup: Callable[[str], float] | None = None) -> None:
        self._english = english
        self._foreign = foreign if foreign is not None else {}
        self._foreign_lookup = foreign_lookup
        self.source = source

    def zipf(self, word: str) -> float:
        """Zipf frequency in English (0.0 when the list does not have it)."""
        return self._english.get(word, 0.0)

    def foreign_zipf(self, word: str) -> float:
        """The highest Zipf frequency of ``word`` in FOREIGN_LANGUAGES."""
        if word not in self._foreign and self._foreign_lookup is not None:
            self._foreign[word] = self._foreign_lookup(word)
        return self._foreign.get(word, 0.0)

    @classmethod
    def from_wordfreq(cls) -> Frequencies:
        """wordfreq's 'large' English list (frequencies rounded to 2 decimals: stable output)."""
        try:
            from importlib.metadata import version

            import wordfreq  # build-time only
        except ImportError:
            raise BuildError("the 'wordfreq' package is needed to build (pip install '.[build]')") from None
        english = {word: round(math.log10(freq) + 9, 2)
                   for word, freq in wordfreq.get_frequency_dict("en", "large").items()
                   if _KEY_RE.fullmatch(word)}

        def foreign(word: str) -> float:
            return float(max(wordfreq.zipf_frequency(word, lang, wordlist="large") for lang in FOREIGN_LANGUAGES))

        source = {
            "name": "wordfreq",
            "role": "frequency signal (English 'large' list; fr es de it pt to spot foreign words)",
            "version": version("wordfreq"),
            "licence": "code Apache-2.0; data CC-BY-SA-4.0 (see wordfreq-LICENSE)",
            "url": "https://github.com/rspeer/wordfreq",
            "shipped": "no: only the levels it moved are in words.levels",
        }
        return cls(english, None, source, foreign)

    @classmethod
    def from_file(cls, path: Path) -> Frequencies:
        """``word<TAB>language<TAB>zipf`` lines; '#' starts a comment."""
        english: dict[str, float] = {}
        foreign: dict[str, float] = {}
        data = path.read_bytes()
        for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3 or not _KEY_RE.fullmatch(parts[0]):
                raise BuildError(f"{path}:{number}: expected 'word<TAB>language<TAB>zipf', got {line!r}")
            try:
                value = float(parts[2])
            except ValueError:
                raise BuildError(f"{path}:{number}: {parts[2]!r} is not a number") from None
            if parts[1] == "en":
                english[parts[0]] = value
            else:
                foreign[parts[0]] = max(foreign.get(parts[0], 0.0), value)
        source = {"name": path.name, "role": "frequency signal", "version": hashlib.sha256(data).hexdigest()[:16],
                  "licence": "test data", "shipped": "no"}
        return cls(english, foreign, source)


def open_frequencies(spec: str) -> Frequencies:
    """'wordfreq' or the path of a frequency file."""
    return Frequencies.from_wordfreq() if spec == "wordfreq" else Frequencies.from_file(Path(spec))


# -- WordNet ----------------------------------------------------------------------------------------

#: A sense key's synset type (lemma%1:...) -> part of speech (5 is an adjective satellite).
_SENSE_KEY_PARTS = {"1": "noun", "2": "verb", "3": "adjective", "4": "adverb", "5": "adjective"}
_WORDNET_FILES = {"noun": "noun", "verb": "verb", "adjective": "adj", "adverb": "adv"}
#: WordNet's own detachment rules (morphy), part of speech -> (suffix, replacement).
_MORPHY_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "noun": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
             ("men", "man"), ("ies", "y")),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "adjective": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adverb": (),
}


@dataclass
class WordNet:
    """What the build needs from WordNet 3.0's database files."""

    #: (lemma, part of speech) -> synset offsets, most frequent sense first (a-z lemmas only).
    senses: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    #: (lemma, part of speech) -> times its senses were tagged in WordNet's corpus (orders parts of speech).
    tagged: dict[tuple[str, str], int] = field(default_factory=dict)
    #: (part of speech, offset) -> the gloss without its examples.
    glosses: dict[tuple[str, int], str] = field(default_factory=dict)
    #: lemmas WordNet writes in lower case in some synset (not only as a name: London, Ares).
    common: set[str] = field(default_factory=set)
    #: lemmas WordNet writes in lower case in some noun synset (a common noun: maglev).
    common_nouns: set[str] = field(default_factory=set)
    #: lemmas WordNet writes in lower case in a noun synset glossed as a unit (tesla, gauss, henry).
    units: set[str] = field(default_factory=set)
    #: lemma -> the first of its written forms (sorted) that carries a capital (SIGINT, Tirana, mRNA).
    capitalised: dict[str, str] = field(default_factory=dict)
    #: (lemma, part of speech, offset) -> times that sense was tagged in WordNet's corpus (cntlist.rev).
    counts: dict[tuple[str, str, int], int] = field(default_factory=dict)
    #: (part of speech, offset) -> (synonyms in the synset, pointers from it): how central an untagged sense is.
    weight: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    #: (part of speech, offset, lemma) where the synset writes the lemma with a capital (Ravel, Marks).
    named_senses: set[tuple[str, int, str]] = field(default_factory=set)
    #: irregular form -> [(part of speech, lemma)] (geese -> goose).
    exceptions: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: a compound written closed -> [(part of speech, WordNet's lemma)]: MOCKUP -> mock-up, AIRBAG -> air_bag
    #: (hyphenated lemmas of any part, spaced ones only as nouns: LEGIT is not the verb "leg it").
    #: Their senses are in ``senses`` under the hyphenated or spaced lemma, which no a-z word reaches.
    closed: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: a-z token -> the shortest lower-case WordNet collocation holding it, with spaces (habeas -> habeas corpus).
    phrases: dict[str, str] = field(default_factory=dict)
    version: str = "unknown"

    def bases(self, word: str, parts: tuple[str, ...] = WORDNET_PARTS) -> list[tuple[str, str]]:
        """(part of speech, lemma) pairs WordNet reaches from ``word``: itself, irregular, then regular forms."""
        found: list[tuple[str, str]] = []
        for part in parts:
            candidates = [word]
            candidates += [lemma for pos, lemma in self.exceptions.get(word, ()) if pos == part]
            candidates += [word[:len(word) - len(suffix)] + ending for suffix, ending in _MORPHY_RULES[part]
                           if word.endswith(suffix) and len(word) > len(suffix)]
            for lemma in candidates:
                if (lemma, part) in self.senses and (part, lemma) not in found:
                    found.append((part, lemma))
        return found


def _gloss(text: str) -> str:
    """A WordNet gloss without its quoted examples: 'a light touch or stroke'."""
    cut = text.find('"')
    gloss = text[:cut] if cut >= 0 else text
    return gloss.strip().rstrip(";").strip()


def read_wordnet(path: Path) -> WordNet:
    """Parse index.*, data.* and *.exc of a WordNet 3.0 database directory."""
    if not (path / "index.noun").is_file():
        raise BuildError(f"{path}: no WordNet database here (install Debian's 'wordnet-base' package)")
    wordnet = WordNet()
    for part, suffix in _WORDNET_FILES.items():
        for number, line in enumerate((path / f"index.{suffix}").read_text(encoding="latin-1").splitlines(), 1):
            if line.startswith(" ") or not line.strip():
                continue  # the licence header
            fields = line.split()
            lemma = fields[0]
            compound = _COMPOUND_RE.fullmatch(lemma) and ("-" in lemma or part == "noun")
            if not _KEY_RE.fullmatch(lemma) and not compound:
                continue
            try:
                synsets, pointers = int(fields[2]), int(fields[3])
                tagged = int(fields[5 + pointers])
                offsets = [int(o) for o in fields[6 + pointers:6 + pointers + synsets]]
            except (IndexError, ValueError):
                raise BuildError(f"{path / f'index.{suffix}'}:{number}: not a WordNet index line") from None
            wordnet.senses[(lemma, part)] = offsets
            wordnet.tagged[(lemma, part)] = tagged
            if compound:
                wordnet.closed.setdefault(re.sub(r"[-_]", "", lemma), []).append((part, lemma))
        for number, line in enumerate((path / f"data.{suffix}").read_text(encoding="latin-1").splitlines(), 1):
            if line.startswith(" ") or not line.strip():
                continue
            head, _, gloss = line.partition(" | ")
            fields = head.split()
            try:
                offset, count = int(fields[0]), int(fields[3], 16)
            except (IndexError, ValueError):
                raise BuildError(f"{path / f'data.{suffix}'}:{number}: not a WordNet data line") from None
            wordnet.glosses[(part, offset)] = _gloss(gloss)
            try:
                wordnet.weight[(part, offset)] = (count, int(fields[4 + 2 * count]))  # members, pointers
            except (IndexError, ValueError):
                raise BuildError(f"{path / f'data.{suffix}'}:{number}: not a WordNet data line") from None
            for i in range(count):
                written = re.sub(r"\(.*\)$", "", fields[4 + 2 * i])  # adjectives carry (p), (a), (ip)
                if not _KEY_RE.fullmatch(written) and _CAPITALISED_RE.fullmatch(written):
                    wordnet.named_senses.add((part, offset, written.lower()))
                if _COMPOUND_RE.fullmatch(written):
                    phrase = written.replace("_", " ")
                    for token in re.split(r"[-_]", written):
                        known = wordnet.phrases.get(token)
                        if known is None or (len(phrase), phrase) < (len(known), known):
                            wordnet.phrases[token] = phrase
                if _KEY_RE.fullmatch(written):
                    wordnet.common.add(written)
                    if part == "noun":
                        wordnet.common_nouns.add(written)
                        if _UNIT_RE.match(wordnet.glosses[(part, offset)]):
                            wordnet.units.add(written)
                elif _CAPITALISED_RE.fullmatch(written):
                    key = written.lower()
                    wordnet.capitalised[key] = min(wordnet.capitalised.get(key, written), written)
        exc = path / f"{suffix}.exc"
        if exc.is_file():
            for line in exc.read_text(encoding="latin-1").splitlines():
                fields = line.split()
                if len(fields) >= 2 and _KEY_RE.fullmatch(fields[0]):
                    wordnet.exceptions.setdefault(fields[0], []).extend(
                        (part, lemma) for lemma in fields[1:] if _KEY_RE.fullmatch(lemma))
    cntlist = path / "cntlist.rev"
    if cntlist.is_file():
        for line in cntlist.read_text(encoding="latin-1").splitlines():
            fields = line.split()
            if len(fields) != 3 or "%" not in fields[0]:
                continue
            lemma, _, rest = fields[0].partition("%")
            tagged_part = _SENSE_KEY_PARTS.get(rest[:1])
            listed = wordnet.senses.get((lemma, tagged_part)) if tagged_part else None
            if (tagged_part and listed and fields[1].isdigit() and fields[2].isdigit()
                    and 0 < int(fields[1]) <= len(listed)):
                ref = (lemma, tagged_part, listed[int(fields[1]) - 1])
                wordnet.counts[ref] = wordnet.counts.get(ref, 0) + int(fields[2])
    return wordnet


# -- SCOWL, the policy and the overlay --------------------------------------------------------------

def collect(scowl: Path, overlay_path: Path, frequencies: Frequencies | None = None,
            wordnet: WordNet | None = None) -> tuple[dict[str, list[int]], dict[tuple[str, str], tuple[int, str]], dict[str, Any]]:
    """Merge the lists, apply the policy, then the overlay.

    Returns key -> level code per sense (0 = absent), the first form per (key, sense), and facts for
    the metadata. Without ``frequencies`` and ``wordnet`` the levels are SCOWL's alone.
    """
    levels: dict[str, list[int]] = defaultdict(lambda: [0] * len(SENSES))
    forms: dict[tuple[str, str], tuple[int, str]] = {}
    files = scowl_files(scowl)
    raw_counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rare: set[str] = set()
    word_index = SENSES.index("word")
    for spelling, category, size, path in files:
        # British variants at the default size or below are words of their size (GAOL, FOETUS): British
        # English is English. The other rare lists still enter at size 95.
        is_rare = spelling in RARE_SPELLINGS and not (spelling in BRITISH_VARIANTS and size <= DEFAULT_LEVEL)
        code = len(LEVELS) if is_rare else _CODE[size]
        for raw in path.read_text(encoding="utf-8").splitlines():
            entry = classify(raw, category)
            if entry is None:
                continue
            if is_rare:
                if entry.sense != "word" or levels[entry.key][word_index]:
                    continue  # a rare spelling only adds words SCOWL's own spellings lack
                rare.add(entry.key)
                raw_counts["rare-spelling words"][str(size)] += 1
            else:
                raw_counts[category][str(size)] += 1
            index = SENSES.index(entry.sense)
            slot = levels[entry.key]
            if slot[index] == 0 or code < slot[index]:
                slot[index] = code
            previous = forms.get((entry.key, entry.sense))
            if previous is None or (code, entry.form) < previous:
                forms[(entry.key, entry.sense)] = (code, entry.form)
    rare = {key for key in rare if levels[key][word_index] == len(LEVELS)}
    changes: dict[str, list[str]] = {}
    overlay = read_overlay(overlay_path)
    if frequencies is not None and wordnet is not None:
        for key, senses in overlay.items():
            # The overlay's default-level words vouch for their forms as any legal word does (MONTES:
            # MONTE); the overlay itself is applied after the policy, below.
            if key in levels and any(sense == "word" and level <= DEFAULT_LEVEL for sense, level, _why in senses):
                levels[key][word_index] = min(levels[key][word_index] or DEFAULT_CODE, DEFAULT_CODE)
        changes = apply_policy(levels, forms, rare, frequencies, wordnet)
    for key, senses in sorted(overlay.items()):
        # An overlay entry says what the spelling is: it replaces every sense SCOWL gave it.
        for sense in (*SENSES, PHRASE_PIECE):
            forms.pop((key, sense), None)
        if any(sense == "unknown" for sense, _level, _why in senses):
            levels.pop(key, None)
            continue
        slot = [0] * len(SENSES)
        for sense, level, why in senses:
            if sense == PHRASE_PIECE:
                slot[SENSES.index("word")] = _CODE[level]
                forms[(key, PHRASE_PIECE)] = (_CODE[level], _phrase(key, why))
            else:
                slot[SENSES.index(sense)] = _CODE[level]
                forms[(key, sense)] = (_CODE[level], key.upper() if sense == "acronym" else key)
        levels[key] = slot
    info = {
        "scowl_files": len(files),
        "scowl_entries_kept": {cat: dict(sorted(sizes.items(), key=lambda kv: int(kv[0]))) for cat, sizes in sorted(raw_counts.items())},
        "overlay_entries": sum(len(v) for v in overlay.values()),
        "policy_changes": {rule: len(keys) for rule, keys in changes.items()},
        "_changes": changes,
    }
    return dict(levels), forms, info


def _phrase(key: str, why: str) -> str:
    """The phrase a piece belongs to: the overlay comment's first quoted phrase holding it ("status quo")."""
    phrase: str
    for phrase in re.findall(r'"([^"]+)"', why):
        if key in re.split(r"[^a-z]+", phrase.lower()):
            return phrase
    return ""


def _leave_out(levels: dict[str, list[int]], forms: dict[tuple[str, str], tuple[int, str]], wordnet: WordNet,
               key: str) -> bool:
    """Take a spelling out of the dictionary (rules 4, 7 and 8), unless it is a piece of a lower-case
    WordNet collocation (HABEAS in habeas corpus, DEJA in deja vu): that stays a size-95 word whose
    verdict says it is only part of that phrase. True when it was left out."""
    for sense in (*SENSES, PHRASE_PIECE):
        forms.pop((key, sense), None)
    phrase = wordnet.phrases.get(key)
    if phrase is None or key in wordnet.common:
        del levels[key]
        return True
    code = _CODE[DOUBTFUL_LEVEL]
    levels[key] = [code] + [0] * (len(SENSES) - 1)
    forms[(key, PHRASE_PIECE)] = (code, phrase)
    return False


def _written_in_lower_case(forms: dict[tuple[str, str], tuple[int, str]], key: str, sense: str) -> bool:
    found = forms.get((key, sense))
    return found is not None and found[1] == key


def apply_policy(levels: dict[str, list[int]], forms: dict[tuple[str, str], tuple[int, str]], rare: set[str],
                 frequencies: Frequencies, wordnet: WordNet) -> dict[str, list[str]]:
    """Move words across the default level by how often people write them; return the keys per rule.

    Promotion (2) runs first, so a promoted plural can vouch for its clipping (ADMINS for ADMIN).

    1. clipped: a lower-case SCOWL abbreviation of 3+ letters without a period (APP, MATHS) that
       people write often (Zipf >= COMMON_ZIPF), whose plural (APPS) or singular (MATH) is a
       default-level word people write (Zipf >= RARE_ZIPF), is a clipped word: a word at the default level.
    2. promoted: a word SCOWL ranks at 70 or 80, or a word only a rare spelling list holds (DONUT),
       with no other sense (a name's frequency is not the word's: YORK), written often
       (Zipf >= COMMON_ZIPF) and not a foreign word, becomes a default-level word.
    3. demoted: a default-level word written less than RARE_ZIPF that WordNet does not know in lower
       case, as a lemma, a plural or verb form of one, or a comparative people write of a common
       adjective, moves to the next size (SOBERER, DARER).
    4. left_out: a spelling SCOWL holds only as a size-95 word (its bin of doubtful entries), that
       WordNet does not know in any form, yet that people write (Zipf >= RARE_ZIPF), is mostly a name,
       abbreviation, foreign word or misspelling SCOWL wrote in lower case (ABID, BHD, OCCURENCE), not
       a rare English word: the build leaves it out, so a table reads "not in the dictionary".

    Rules 5 to 7 only say better why a spelling is refused: each applies to spellings refused at the
    default level whatever it decides, and none makes a spelling legal or illegal there.

    5. capitalised_word: a spelling SCOWL capitalises above the default level (Maglev, as a proper
       noun at or below the size of its lower-case word, or with no word at all) that WordNet writes
       only in lower case, as a common noun, is that common word capitalised, not a name: its proper
       noun sense becomes a word at the same size (MAGLEV is "uncommon", not "proper_noun").
    6. named: a lower-case SCOWL word above the default level that WordNet writes only with capitals,
       in every form (SIGINT, Tirana), is an acronym (two capitals or more) or a name at the same size.
    7. foreign: a size-80 word WordNet does not know in any form, that people write in English
       (Zipf >= RARE_ZIPF) but FOREIGN_WORD_MARGIN more in French, Spanish, German, Italian or
       Portuguese (AVENIR, PROJET), is a foreign word SCOWL filed as English: the build leaves it out,
       so a table reads "not in the dictionary".
    8. foreign_name (issue 19): a spelling SCOWL lists only as a size-95 name, that WordNet does not
       know, written in English (Zipf >= RARE_ZIPF) but FOREIGN_WORD_MARGIN more in another language
       (UNE, PERO, DESDE), is a foreign word SCOWL capitalised: left out like rule 7's.
    phrase_piece (issue 19): a spelling rules 4, 7 or 8 would leave out that is a piece of a lower-case
    WordNet collocation (HABEAS, DEJA, FACTO) stays a size-95 word whose verdict names the phrase.
    """
    word = SENSES.index("word")
    others = range(1, len(SENSES))
    promotable = {_CODE[size] for size in PROMOTABLE_LEVELS}
    changes: dict[str, list[str]] = {"clipped": [], "promoted": [], "forms": [], "kept": [], "demoted": [], "left_out": [],
                                     "capitalised_word": [], "contraction": [], "surname": [], "named": [], "numeral": [],
                                     "foreign": [], "foreign_name": [], "phrase_piece": [], "calendar_abbreviation": []}

    def known_as_word(key: str) -> bool:
        """WordNet knows the spelling in lower case: itself, a plural or verb form, or a used comparative."""
        if key in wordnet.common:
            return True
        if any(lemma in wordnet.common for _pos, lemma in wordnet.bases(key, ("noun", "verb"))):
            return True
        return frequencies.zipf(key) > 0 and any(
            lemma != key and lemma in wordnet.common and frequencies.zipf(lemma) >= COMMON_ZIPF + 0.5
            for _pos, lemma in wordnet.bases(key, ("adjective",)))

    def written_word(key: str) -> bool:
        code = levels[key][word] if key in levels else 0
        return 0 < code <= DEFAULT_CODE and frequencies.zipf(key) >= RARE_ZIPF

    irregular = {(lemma, part) for form, pairs in wordnet.exceptions.items() for part, lemma in pairs
                 if not any(d.base == lemma for d in morphology.derivations(form))}

    def parts(base: str) -> set[str]:
        return {part for part, _lemma in wordnet.bases(base)}

    def is_irregular(base: str, part: str) -> bool:
        return (base, part) in irregular

    def at_default(base: str) -> bool:
        return base in levels and 0 < levels[base][word] <= DEFAULT_CODE

    proper = SENSES.index("proper_noun")
    for key in sorted(levels):  # promotion first: a promoted plural (ADMINS) vouches for its clipping
        slot = levels[key]
        code = slot[word]
        if code <= DEFAULT_CODE:
            continue
        zipf = frequencies.zipf(key)
        lemma = key in wordnet.common and not _ROMAN_RE.fullmatch(key)
        if any(slot[i] for i in others):
            if key in wordnet.units and not any(slot[i] for i in others if i != proper) and zipf >= RARE_ZIPF:
                # A unit named after a person (TESLA, GAUSS) is a word whatever name SCOWL also lists.
                slot[word], slot[proper] = DEFAULT_CODE, 0
                forms.pop((key, "proper_noun"), None)
                changes["promoted"].append(key)
            elif code and code < min(slot[i] for i in others if slot[i]) and zipf >= WORDNET_ZIPF and (
                    lemma or (any(lem in wordnet.common for _p, lem in wordnet.bases(key))
                              and morphology.form_of(key, at_default, parts, is_irregular) is not None)):
                # A word SCOWL ranks as more common than its name that WordNet knows (MOJO, DECO), or a
                # regular form of such a word that WordNet reaches (ORCAS: ORCA; Orcas Island is rarer).
                slot[word] = DEFAULT_CODE
                changes["promoted"].append(key)
            continue
        if ((lemma and zipf >= WORDNET_ZIPF)
                or (zipf >= RARE_ZIPF and (lemma or any(lem in wordnet.common for _p, lem in wordnet.bases(key)))
                    and morphology.form_of(key, at_default, parts, is_irregular) is not None)
                or ((code in promotable or key in rare) and zipf >= PROMOTE_ZIPF
                    and frequencies.foreign_zipf(key) <= zipf + FOREIGN_MARGIN)):
            slot[word] = DEFAULT_CODE
            changes["promoted"].append(key)
    doubtful = _CODE[DOUBTFUL_LEVEL]
    unvouched: set[str] = set()
    for key in sorted(levels):
        slot = levels[key]
        code = slot[word]
        if (code == doubtful and not any(slot[i] for i in others) and frequencies.zipf(key) >= RARE_ZIPF
                and not wordnet.bases(key)):
            changes["left_out" if _leave_out(levels, forms, wordnet, key) else "phrase_piece"].append(key)
            continue
        if (slot[SENSES.index("abbreviation")] and not 0 < code <= DEFAULT_CODE and len(key) >= 3
                and _written_in_lower_case(forms, key, "abbreviation") and frequencies.zipf(key) >= COMMON_ZIPF
                and (len(key) > 4 and written_word(key[:-1]) if key.endswith("s") else written_word(key + "s"))):
            slot[word] = DEFAULT_CODE
            changes["clipped"].append(key)
        elif 0 < code <= DEFAULT_CODE and frequencies.zipf(key) < RARE_ZIPF and not known_as_word(key):
            unvouched.add(key)

    def legal(base: str) -> bool:
        return at_default(base) and base not in unvouched

    settled = True
    while settled:  # a form vouched for can vouch in turn (REPAVED: PAVED, a form of PAVE)
        settled = False
        for key in sorted(unvouched):
            if morphology.form_of(key, legal, parts, is_irregular) is not None:
                unvouched.discard(key)
                changes["forms"].append(key)
                settled = True
    changes["forms"].sort()
    for key in sorted(unvouched):
        if morphology.nonce_form(key, legal, parts, is_irregular) is not None:
            levels[key][word] = DEMOTED_CODE
            changes["demoted"].append(key)
        else:
            changes["kept"].append(key)
    _apply_reason_rules(levels, forms, frequencies, wordnet, changes)
    return changes


def _apply_reason_rules(levels: dict[str, list[int]], forms: dict[tuple[str, str], tuple[int, str]],
                        frequencies: Frequencies, wordnet: WordNet, changes: dict[str, list[str]]) -> None:
    """Rules 5 to 7 of ``apply_policy``: spellings refused at the default level either way."""
    word, proper, contraction = SENSES.index("word"), SENSES.index("proper_noun"), SENSES.index("contraction")
    abbreviation = SENSES.index("abbreviation")
    others = range(1, len(SENSES))
    for key in sorted(levels):
        slot = levels[key]
        code = slot[word]
        if key in CALENDAR_ABBREVIATIONS and slot[proper] and not DEFAULT_CODE >= code > 0:
            # APR, OCT, THURS: SCOWL lists them among names (OCT also as a rarer abbreviation, Oct.), but they
            # are a month's or a day's abbreviation, at the name's size (MAR, SAT, SUN, WED are words, and stay so).
            name = forms.pop((key, "proper_noun"), (slot[proper], key.capitalize()))
            forms.setdefault((key, "abbreviation"), name)
            slot[abbreviation] = min(slot[proper], slot[abbreviation] or slot[proper])
            slot[proper] = 0
            changes["calendar_abbreviation"].append(key)
        elif (slot[proper] > DEFAULT_CODE and (not code or code >= slot[proper])
                and key in wordnet.common_nouns and key not in wordnet.capitalised):
            slot[word] = slot[proper]
            slot[proper] = 0
            forms.pop((key, "proper_noun"), None)
            changes["capitalised_word"].append(key)
        elif (slot[contraction] and slot[proper] and forms.get((key, "proper_noun"), (0, ""))[1].lower()
              == forms.get((key, "contraction"), (0, ""))[1].lower()
              and _CONTRACTED_RE.search(forms[(key, "contraction")][1].lower())):
            # SCOWL's contraction list wins over the capitals of I've (IVE is a contraction).
            slot[proper] = 0
            forms.pop((key, "proper_noun"), None)
            changes["contraction"].append(key)
        elif (code >= _CODE[80] and slot[proper] and not any(slot[i] for i in others if i != proper)
              and frequencies.zipf(key) >= PROMOTE_ZIPF and not wordnet.bases(key)):
            # A surname's text frequency (REDDY, TAIT): written often enough to be promoted were it a word,
            # but no dictionary (WordNet) holds it in lower case and SCOWL also lists the name.
            slot[proper] = min(slot[proper], code)
            slot[word] = 0
            changes["surname"].append(key)
        elif (slot[proper] == _CODE[DOUBTFUL_LEVEL] and not code and not any(slot[i] for i in others if i != proper)
              and frequencies.zipf(key) >= RARE_ZIPF and not wordnet.bases(key)
              and frequencies.foreign_zipf(key) >= frequencies.zipf(key) + FOREIGN_WORD_MARGIN):
            # A foreign word SCOWL lists only among its size-95 names (UNE, PERO, WENN, DESDE): like rule 7's
            # words it is left out, so a table reads "not in the dictionary" rather than "a proper noun".
            changes["foreign_name" if _leave_out(levels, forms, wordnet, key) else "phrase_piece"].append(key)
        elif code <= DEFAULT_CODE or any(slot[i] for i in others):
            continue
        elif (key in wordnet.capitalised and key not in wordnet.common
              and not any(lemma in wordnet.common for _pos, lemma in wordnet.bases(key))):
            written = wordnet.capitalised[key]
            sense = "acronym" if sum(c.isupper() for c in written) > 1 else "proper_noun"
            slot[SENSES.index(sense)] = code
            slot[word] = 0
            forms[(key, sense)] = (code, written)
            changes["named"].append(key)
        elif len(key) >= 3 and _ROMAN_RE.fullmatch(key):
            # A Roman numeral SCOWL files as a rare word (XIII, XVIII): not a word at all.
            del levels[key]
            for sense in SENSES:
                forms.pop((key, sense), None)
            changes["numeral"].append(key)
        elif (code == _CODE[FOREIGN_WORD_LEVEL] and frequencies.zipf(key) >= RARE_ZIPF and not wordnet.bases(key)
              and frequencies.foreign_zipf(key) >= frequencies.zipf(key) + FOREIGN_WORD_MARGIN):
            changes["foreign" if _leave_out(levels, forms, wordnet, key) else "phrase_piece"].append(key)


#: Months' and days' abbreviations (APR, SEPT, TUES): the first three letters of each name, and the longer
#: ones in use. SCOWL lists several among proper names; a table calls them abbreviations.
_MONTHS_AND_DAYS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
                    "saturday", "sunday")
CALENDAR_ABBREVIATIONS = frozenset({name[:3] for name in _MONTHS_AND_DAYS} | {"sept", "tues", "thur", "thurs"})


# -- definitions ------------------------------------------------------------------------------------

def definition_ids(wordnet: WordNet, key: str) -> list[tuple[str, int]]:
    """(part of speech, synset offset) to show for ``key``, in display order (issue 19).

    The key's own senses come first (BACKER: one who backs, before BACK), then its lemmas' (TAPS
    reaches TAP), or, when WordNet reaches none, the base the morphology rules read it as (DEEDED:
    DEED). A name's sense is dropped (RAVELS: not Maurice Ravel) while another is left. Within a part
    of speech the senses tagged most often in WordNet's corpus come first (cntlist), untagged ones by
    how central the synset is (more synonyms, then more links: LORRY the truck before the wagon);
    parts of speech by the same counts. DEFINITIONS_PER_PART per part of speech.
    """
    bases, own_lemma = wordnet.bases(key), key
    if not bases and key in wordnet.closed:
        bases = list(wordnet.closed[key])  # MOCKUP: WordNet's mock-up
        own_lemma = bases[0][1]
    if not bases:
        for derivation in morphology.derivations(key):
            if derivation.rule in _DEFINED_THROUGH and derivation.base in wordnet.closed:
                bases = list(wordnet.closed[derivation.base])  # MOCKUPS: mock-up
                own_lemma = bases[0][1]
                break
            if derivation.rule in _DEFINED_THROUGH:
                # DEEDED: WordNet has DEED only as a noun, whose senses are the nearest it has
                bases = wordnet.bases(derivation.base, derivation.needs) or wordnet.bases(derivation.base)
                if bases:
                    own_lemma = derivation.base  # BLUESY: BLUES, before BLUE
                    break
    candidates: list[tuple[int, int, int, int, int, str, int]] = []
    tagged: dict[str, int] = {}  # senses of the part tagged at all (WordNet's index): the tie-break without cntlist
    for part, lemma in bases:
        tagged[part] = tagged.get(part, 0) + wordnet.tagged.get((lemma, part), 0)
        own = 0 if lemma == own_lemma else 1
        for offset in wordnet.senses[(lemma, part)]:
            if (part, offset) not in wordnet.glosses:
                continue
            count = wordnet.counts.get((lemma, part, offset), 0)
            members, pointers = wordnet.weight.get((part, offset), (0, 0))
            named = 1 if (part, offset, lemma) in wordnet.named_senses else 0
            candidates.append((own, named, -count, -members, -pointers, part, offset))
    if own_lemma != key or any(not named for _own, named, *_rest in candidates):
        candidates = [c for c in candidates if not c[1]]  # a name's sense is no sense of a lower-case word
    groups: dict[tuple[int, str], list[int]] = {}  # (own, part) -> offsets: the word's own senses first
    counted: dict[tuple[int, str], int] = {}
    shown: dict[str, list[int]] = {}
    for own, _named, negative, _m, _p, part, offset in sorted(candidates, key=lambda c: (c[0], c[2], c[3], c[4])):
        counted[(own, part)] = counted.get((own, part), 0) - negative
        chosen = shown.setdefault(part, [])
        if len(chosen) < DEFINITIONS_PER_PART and offset not in chosen:
            chosen.append(offset)
            groups.setdefault((own, part), []).append(offset)
    order = sorted(groups, key=lambda group: (group[0], -counted[group], -tagged[group[1]],
                                              PARTS_OF_SPEECH.index(group[1])))
    return [(part, offset) for own, part in order for offset in groups[(own, part)]]


#: Built definitions' ids are negative; GCIDE's are at or below -GCIDE_REF (their byte carries GCIDE_FLAG).
GCIDE_REF = 1 << 24

#: Morphology rules through which a spelling WordNet does not reach borrows its base's senses.
_DEFINED_THROUGH = frozenset({"plural_or_third_person", "past", "present_participle", "comparative", "superlative"})


def _third_person(verb: str) -> str:
    """GUIDE -> guides, FIX -> fixes, CARRY -> carries: for a built definition's wording."""
    if verb.endswith(("s", "x", "z", "ch", "sh", "o")):
        return verb + "es"
    if verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


#: Definitions built from the rule table for a word WordNet does not reach, by the rule that derives it
#: from a word (issue 19): part of speech and wording. The base is written in capitals (a game's words).
_BUILT: dict[str, tuple[str, str]] = {
    "agent": ("noun", "one who {third} (from {BASE})"),
    "re": ("verb", "{base} again (RE- + {BASE})"),
    "out": ("verb", "surpass in {base} (OUT- + {BASE})"),
    "over": ("verb", "{base} too much (OVER- + {BASE})"),
    "adverb": ("adverb", "in a {base} manner (from {BASE})"),
    "like": ("adjective", "like a {base} (from {BASE})"),
    "ful": ("noun", "as much as a {base} holds (from {BASE})"),
    "less": ("adjective", "without a {base} (from {BASE})"),
    "ness": ("noun", "the state of being {base} (from {BASE})"),
    "y_adjective": ("adjective", "like or full of {base} (from {BASE})"),
    "comparative": ("adjective", "more {base} (from {BASE})"),
    "superlative": ("adjective", "most {base} (from {BASE})"),
}


def built_definition(key: str, known: set[str], wordnet: WordNet) -> tuple[str, str] | None:
    """(part of speech, text) the rule table says ``key`` means when WordNet has nothing for it:
    GUIDERS is 'one who guides', REBID 'bid again', DANKLY 'in a dank manner'. Its base must be a
    known spelling; a plural or verb form reaches its base's built definition (GUIDERS: GUIDER)."""
    for derivation in morphology.derivations(key):
        base = derivation.base
        if base not in known or base == key:
            continue
        parts = {part for part, _lemma in wordnet.bases(base)}
        if derivation.rule in _BUILT and parts & set(derivation.needs):
            part, text = _BUILT[derivation.rule]
            if derivation.rule == "un":
                continue
            return part, text.format(base=base, BASE=base.upper(), third=_third_person(base))
        if derivation.rule == "un" and parts & set(derivation.needs):
            if "adjective" in parts:
                return "adjective", f"not {base} (UN- + {base.upper()})"
            return "verb", f"undo: {base} in reverse (UN- + {base.upper()})"
        if derivation.rule in ("plural_or_third_person", "past", "present_participle") and not wordnet.bases(base):
            found = built_definition(base, known, wordnet)
            if found is not None:
                return found
    return None


def gcide_definition(key: str, gcide: Gcide) -> tuple[str, str] | None:
    """GCIDE's first current sense of ``key``, else of the base a plural, verb form or comparative is read
    as (AYES: AYE): for a word neither WordNet nor the rule table defines."""
    found = gcide.define(key)
    for derivation in morphology.derivations(key):
        if found is not None:
            break
        if derivation.rule in _DEFINED_THROUGH and derivation.base != key:
            found = gcide.define(derivation.base)
    return found


def build_definitions(wordnet: WordNet, keys: list[str], out: Path, words: list[str] | None = None,
                      gcide: Gcide | None = None, legal: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Write DEFINITIONS_TRIE and DEFINITIONS_TEXT for ``keys``, WordNet's a-z lemmas and irregular forms.

    A word (``words``: the keys with a word sense) WordNet has nothing for gets the definition the rule
    table builds from another word, when it has one (``built_definition``); else a word legal at the
    default size (``legal``) gets GCIDE's first sense (rarer words would cost more bytes than they serve)."""
    words = keys if words is None else words
    every = sorted(set(keys) | {lemma for lemma, _part in wordnet.senses if _KEY_RE.fullmatch(lemma)}
                   | set(wordnet.exceptions))
    known = set(words)
    gloss_ids: dict[tuple[str, int], int] = {}
    built: dict[tuple[str, int], str] = {}  # (part, -n) -> a built definition's text (GCIDE's: -n - GCIDE_REF)
    built_refs: dict[tuple[str, str], tuple[str, int]] = {}
    gcide_refs: dict[tuple[str, str], tuple[str, int]] = {}
    items: list[tuple[str, bytes]] = []
    for key in every:
        chosen = definition_ids(wordnet, key)
        if not chosen and key in known:
            made = built_definition(key, known, wordnet)
            if made is not None:
                if made not in built_refs:
                    built_refs[made] = (made[0], -1 - len(built_refs))
                    built[built_refs[made]] = made[1]
                chosen = [built_refs[made]]
        if not chosen and key in legal and gcide is not None:
            made = gcide_definition(key, gcide)
            if made is not None:
                if made not in gcide_refs:
                    gcide_refs[made] = (made[0], -GCIDE_REF - len(gcide_refs))
                    built[gcide_refs[made]] = made[1]
                chosen = [gcide_refs[made]]
        if not chosen:
            continue
        payload = bytearray()
        for ref in chosen:
            if ref not in gloss_ids:
                gloss_ids[ref] = len(gloss_ids)
            payload += gloss_ids[ref].to_bytes(DEFINITION_ID_BYTES, "little")
        items.append((key, bytes(payload)))
    if len(gloss_ids) >= 1 << (8 * DEFINITION_ID_BYTES):
        raise BuildError(f"{len(gloss_ids)} glosses do not fit {DEFINITION_ID_BYTES}-byte ids")
    marisa_trie.BytesTrie(items).save(str(out / DEFINITIONS_TRIE))
    records = [bytes([PARTS_OF_SPEECH.index(part) | (GCIDE_FLAG if offset <= -GCIDE_REF else 0)])
               + (built[(part, offset)] if offset < 0 else wordnet.glosses[(part, offset)]).encode("utf-8")
               for (part, offset), _id in sorted(gloss_ids.items(), key=lambda kv: kv[1])]
    offsets, position = [], 0
    for record in records:
        offsets.append(position)
        position += len(record)
    offsets.append(position)
    text = (DEFINITIONS_MAGIC + struct.pack("<I", len(records)) + struct.pack(f"<{len(offsets)}I", *offsets)
            + b"".join(records))
    (out / DEFINITIONS_TEXT).write_bytes(text)
    digests = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in DEFINITION_FILES}
    return {
        "source": "WordNet 3.0 (Princeton University), Debian package wordnet-base"
                  + (f"; GCIDE for {len(gcide_refs)} glosses of words WordNet lacks" if gcide_refs else ""),
        "entries": len(items),
        "glosses": len(records),
        "per_part_of_speech": DEFINITIONS_PER_PART,
        "files": {name: {"bytes": (out / name).stat().st_size, "sha256": digests[name]} for name in DEFINITION_FILES},
        "checksum": hashlib.sha256("".join(f"{n}:{digests[n]}\n" for n in DEFINITION_FILES).encode()).hexdigest(),
    }


# -- writing ----------------------------------------------------------------------------------------

def build(scowl: Path, overlay_path: Path, out: Path, version: str, *, frequencies: Frequencies | None,
          wordnet: WordNet | None, gcide: Gcide | None = None) -> dict[str, Any]:
    """Write every data file and ``metadata.json`` into ``out``; return the metadata.

    ``frequencies`` and ``wordnet`` None build SCOWL's levels alone and no definitions (the
    baseline the lexicon report compares with); ``gcide`` defines words WordNet lacks.
    """
    levels, forms, info = collect(scowl, overlay_path, frequencies, wordnet)
    info.pop("_changes")
    out.mkdir(parents=True, exist_ok=True)

    words = marisa_trie.Trie(sorted(levels))
    words.save(str(out / WORDS_TRIE))
    table = bytearray(len(SENSES) * len(words))
    for key, slot in levels.items():
        i = words[key] * len(SENSES)
        table[i:i + len(SENSES)] = bytes(slot)
    (out / WORDS_LEVELS).write_bytes(bytes(table))

    form_items = sorted(
        (key, bytes([PHRASE_PIECE_INDEX if sense == PHRASE_PIECE else SENSES.index(sense)]) + form.encode("utf-8"))
        for (key, sense), (_code, form) in forms.items()
        if sense != "word"
    )
    marisa_trie.BytesTrie(form_items).save(str(out / FORMS_TRIE))

    # Rack index: a node per prefix of the sorted letters of every key that is a word (3..7 letters).
    word_index = SENSES.index("word")
    node_children: dict[str, int] = defaultdict(int)
    node_sub_min: dict[str, int] = {}
    node_words: dict[str, list[int]] = defaultdict(list)
    for key, slot in levels.items():
        code = slot[word_index]
        if code == 0 or not 3 <= len(key) <= MAX_WORD_LETTERS:
            continue
        letters = "".join(sorted(key))
        for depth in range(len(letters) + 1):
            prefix = letters[:depth]
            node_sub_min[prefix] = min(node_sub_min.get(prefix, 255), code)
            if depth < len(letters):
                node_children[prefix] |= 1 << (ord(letters[depth]) - 97)
        node_words[letters].append(words[key])
    racks = marisa_trie.Trie(sorted(node_sub_min))
    racks.save(str(out / RACKS_TRIE))
    node_size = struct.calcsize(NODE_FORMAT)
    nodes = bytearray(node_size * len(racks))
    word_ids: list[int] = []
    for prefix in sorted(node_sub_min, key=racks.__getitem__):
        ids = sorted(node_words.get(prefix, []), key=words.restore_key)
        own_min = min((levels[words.restore_key(i)][word_index] for i in ids), default=255)
        struct.pack_into(NODE_FORMAT, nodes, racks[prefix] * node_size,
                         node_children.get(prefix, 0), node_sub_min[prefix], own_min, len(ids), len(word_ids))
        word_ids.extend(ids)
    (out / RACKS_NODES).write_bytes(bytes(nodes))
    (out / RACKS_WORDS).write_bytes(b"".join(struct.pack(WORD_ID_FORMAT, i) for i in word_ids))

    counts: dict[str, dict[str, int]] = {}
    for sense_i, sense in enumerate(SENSES):
        per_level: defaultdict[str, int] = defaultdict(int)
        for slot in levels.values():
            if slot[sense_i]:
                per_level[str(LEVELS[slot[sense_i] - 1])] += 1
        counts[sense] = dict(sorted(per_level.items(), key=lambda kv: int(kv[0])))
    digests = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in DATA_FILES}
    sizes = {name: (out / name).stat().st_size for name in DATA_FILES}
    checksum = hashlib.sha256("".join(f"{n}:{digests[n]}\n" for n in DATA_FILES).encode()).hexdigest()
    sources = [{
        "name": "SCOWL",
        "role": "the word lists and their sizes (levels)",
        "version": version,
        "licence": "SCOWL's permissive licence (see SCOWL-COPYRIGHT)",
        "url": "http://wordlist.aspell.net/",
        "shipped": "yes: the spellings and levels",
    }]
    definitions = None
    if frequencies is not None:
        sources.append(frequencies.source)
    if wordnet is not None:
        definitions = build_definitions(wordnet, sorted(levels), out,
                                        sorted(key for key, slot in levels.items() if slot[SENSES.index("word")]),
                                        gcide, frozenset(key for key, slot in levels.items()
                                                         if 0 < slot[SENSES.index("word")] <= DEFAULT_CODE))
        sources.append({
            "name": "WordNet",
            "role": "definitions; tells a real word from a stray form (the policy)",
            "version": wordnet.version,
            "licence": "WordNet 3.0 licence, Princeton University (see WordNet-LICENSE)",
            "url": "https://wordnet.princeton.edu/",
            "shipped": "yes: glosses in definitions.text",
        })
        if gcide is not None:
            sources.append({
                "name": "GCIDE",
                "role": "definitions of words WordNet has none for (function words, interjections): the first current sense",
                "version": gcide.version,
                "licence": "GPL-2.0-or-later (see GCIDE-LICENSE; GCIDE 0.48 says version 2 or any later)",
                "url": "https://gcide.gnu.org.ua/",
                "shipped": "yes: glosses in definitions.text, marked as GCIDE's",
            })
    else:
        for name in DEFINITION_FILES:
            (out / name).unlink(missing_ok=True)
    metadata = {
        "format_version": FORMAT_VERSION,
        "source": SOURCE,
        "version": version,
        "sources": sources,
        "spellings": list(SPELLINGS),
        "rare_spellings": list(RARE_SPELLINGS),
        "categories": list(CATEGORIES),
        "levels": list(LEVELS),
        "senses": list(SENSES),
        "keys": len(words),
        "rack_nodes": len(racks),
        "rack_words": len(word_ids),
        "counts_by_sense_and_level": counts,
        **info,
        "policy": {"common_zipf": COMMON_ZIPF, "rare_zipf": RARE_ZIPF, "foreign_margin": FOREIGN_MARGIN,
                   "foreign_languages": list(FOREIGN_LANGUAGES), "promotable_levels": list(PROMOTABLE_LEVELS),
                   "doubtful_level": DOUBTFUL_LEVEL, "foreign_word_margin": FOREIGN_WORD_MARGIN,
                   "foreign_word_level": FOREIGN_WORD_LEVEL}
        if frequencies is not None else None,
        "overlay_sha256": hashlib.sha256(overlay_path.read_bytes()).hexdigest(),
        "files": {name: {"bytes": sizes[name], "sha256": digests[name]} for name in DATA_FILES},
        "checksum": checksum,
        "definitions": definitions,
    }
    (out / METADATA).write_text(json.dumps(metadata, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return metadata


def package_version(package: str, root: Path, default: Path) -> str:
    """The Debian package version when ``root`` is the installed package's directory, else 'unknown'."""
    status = Path("/var/lib/dpkg/status")
    if root.resolve() == default and status.is_file():
        block = re.search(rf"^Package: {re.escape(package)}\n(?:.+\n)*?Version: (\S+)", status.read_text(errors="replace"), re.M)
        if block:
            return block.group(1)
    return "unknown"


def scowl_version(scowl: Path) -> str:
    """The Debian package version when the lists are the installed package's, else 'unknown'."""
    return package_version("scowl", scowl, DEFAULT_SCOWL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.build_dictionary", description=__doc__.splitlines()[0])
    parser.add_argument("--scowl", type=Path, default=DEFAULT_SCOWL, help="directory of SCOWL final lists")
    parser.add_argument("--wordnet", type=Path, default=DEFAULT_WORDNET, help="WordNet 3.0 database directory")
    parser.add_argument("--frequencies", default="wordfreq",
                        help="'wordfreq' (the package) or a file of word<TAB>language<TAB>zipf lines")
    parser.add_argument("--gcide", type=Path, default=DEFAULT_GCIDE,
                        help="directory of GCIDE's dictd files (gcide.index, gcide.dict.dz)")
    parser.add_argument("--overlay", type=Path, default=DEFAULT_OVERLAY, help="hand-kept corrections")
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="where the built files go")
    parser.add_argument("--source-version", default=None, help="SCOWL version to record (default: from dpkg)")
    args = parser.parse_args(argv)
    try:
        if not args.scowl.is_dir():
            raise BuildError(f"{args.scowl}: no SCOWL word lists here (install Debian's 'scowl' package)")
        wordnet = read_wordnet(args.wordnet)
        wordnet.version = package_version("wordnet-base", args.wordnet, DEFAULT_WORDNET)
        gcide = read_gcide(args.gcide)
        gcide.version = package_version("dict-gcide", args.gcide, DEFAULT_GCIDE)
        frequencies = open_frequencies(args.frequencies)
        metadata = build(args.scowl, args.overlay, args.out, args.source_version or scowl_version(args.scowl),
                         frequencies=frequencies, wordnet=wordnet, gcide=gcide)
    except (BuildError, GcideError, OSError, UnicodeDecodeError) as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    print(f"built {metadata['keys']} spellings, {metadata['rack_words']} rack words, "
          f"{metadata['definitions']['entries']} defined spellings into {args.out} "
          f"(checksum {metadata['checksum'][:12]}; policy {metadata['policy_changes']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
