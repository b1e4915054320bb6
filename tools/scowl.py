"""SCOWL's word lists and the overlay, read: which files count (spellings, categories, sizes), what each
line of them is (a word, a name, an abbreviation...) and the hand-kept corrections with their reasons."""
from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from dictionaries import (
    LEVELS,
    PHRASE_PIECE,
    SENSES,
)
from tools.build_inputs import BuildError

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
DEFAULT_OVERLAY = Path(__file__).resolve().parent / "overlay.txt"
SOURCE = "SCOWL (Spell Checker Oriented Word Lists) by Kevin Atkinson, Debian package scowl"
_SPELLING_RE = re.compile(r"[A-Za-z.']+")
_FILE_RE = re.compile(r"^(?P<spelling>[a-z_0-9]+)-(?P<category>[a-z-]+)\.(?P<size>\d+)$")
#: A capitalised entry of at most this many letters that mixes cases with two capitals side by side or a
#: capital last is an abbreviation: SCOWL files MHz and EdD among its "upper" words and VoIP among its
#: names, but such spellings are units, degrees, old languages (OFr) and compass points (NbE) (issue 19).
#: Longer ones are mostly names of products (MySQL, PowerPC, MongoDB) or words made from acronyms
#: (WASPish), and stay names.
MIXED_CASE_LETTERS = 4
_TWO_CAPITALS_RE = re.compile(r"[A-Z]{2}|[A-Z]$")


def _mixed_case_abbreviation(text: str) -> bool:
    """MHz, VoIP, EdD, OFr: short, capitalised, not all capitals, two capitals together or one last."""
    return (text.isalpha() and len(text) <= MIXED_CASE_LETTERS and text[0].isupper() and not text.isupper()
            and _TWO_CAPITALS_RE.search(text) is not None)


_OVERLAY_RE = re.compile(r"^(?P<key>[a-z]+)\s+(?P<sense>[a-z_]+)\s+(?P<level>\d+)\s+#\s*(?P<why>\S.*)$")


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
    its plural, CDs) is an acronym, a short one that mixes cases with two capitals (MHz, VoIP, EdD) an
    abbreviation, and a capitalised one a proper noun whatever apostrophe it carries (O'Brien); a
    lower-case apostrophe marks a contraction (o'clock).
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
    elif category == "abbreviations" or _mixed_case_abbreviation(text):
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
