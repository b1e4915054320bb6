"""WordNet 3.0's database, read: the lemmas and their senses per part of speech, the words it writes with a
capital, its glosses and its own detachment rules (morphy)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from dictionaries import (
    WORDNET_PARTS,
)
from tools.build_inputs import KEY_RE, BuildError

DEFAULT_WORDNET = Path("/usr/share/wordnet")
_COMPOUND_RE = re.compile(r"[a-z]+(?:[-_][a-z]+)+")
_UNIT_RE = re.compile(r"(?:a|the|an)\s+(?:\S+\s+)?unit of\b")
_CAPITALISED_RE = re.compile(r"[A-Za-z]*[A-Z][A-Za-z]*")
#: A sense key's synset type (lemma%1:...) -> part of speech (5 is an adjective satellite).
_SENSE_KEY_PARTS = {"1": "noun", "2": "verb", "3": "adjective", "4": "adverb", "5": "adjective"}
#: Pointer symbols of a domain (;c ;r ;u and their members -c -r -u): a topic, not a link of the sense's own.
_DOMAIN_POINTERS = frozenset(";-")
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
    #: (part of speech, offset) -> its semantic links (hypernyms, hyponyms, parts, derivations...; not the
    #: topic, region and usage domains): how central a sense is, for those no corpus count orders.
    links: dict[tuple[str, int], int] = field(default_factory=dict)
    #: (part of speech, offset, lemma) -> where the synset writes the lemma, 0 first: a word written late in
    #: a synset is another word's sense (FIN in five, 5, V, ... fin; PRODIGY in omen, portent, ... prodigy).
    places: dict[tuple[str, int, str], int] = field(default_factory=dict)
    #: (part, offset) -> the lexicographer file's number (noun.substance is 27): what kind of thing a synset is.
    lexfiles: dict[tuple[str, int], int] = field(default_factory=dict)
    #: (part of speech, offset, lemma) -> how the synset writes the lemma, where it has a capital (Ravel,
    #: Marks, WHO, kHz).
    named_senses: dict[tuple[str, int, str], str] = field(default_factory=dict)
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
            if not KEY_RE.fullmatch(lemma) and not compound:
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
            wordnet.lexfiles[(part, offset)] = int(fields[1])
            try:
                pointers = int(fields[4 + 2 * count])
                symbols = fields[5 + 2 * count:5 + 2 * count + 4 * pointers:4]
            except (IndexError, ValueError):
                raise BuildError(f"{path / f'data.{suffix}'}:{number}: not a WordNet data line") from None
            wordnet.links[(part, offset)] = sum(1 for symbol in symbols if symbol[0] not in _DOMAIN_POINTERS)
            for i in range(count):
                written = re.sub(r"\(.*\)$", "", fields[4 + 2 * i])  # adjectives carry (p), (a), (ip)
                wordnet.places.setdefault((part, offset, written.lower()), i)
                if not KEY_RE.fullmatch(written) and _CAPITALISED_RE.fullmatch(written):
                    wordnet.named_senses.setdefault((part, offset, written.lower()), written)
                if _COMPOUND_RE.fullmatch(written):
                    phrase = written.replace("_", " ")
                    for token in re.split(r"[-_]", written):
                        known = wordnet.phrases.get(token)
                        if known is None or (len(phrase), phrase) < (len(known), known):
                            wordnet.phrases[token] = phrase
                if KEY_RE.fullmatch(written):
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
                if len(fields) >= 2 and KEY_RE.fullmatch(fields[0]):
                    wordnet.exceptions.setdefault(fields[0], []).extend(
                        (part, lemma) for lemma in fields[1:] if KEY_RE.fullmatch(lemma))
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
