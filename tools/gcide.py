"""The first current sense of a word in GCIDE (dictd files), for words WordNet has no definition of.

GCIDE (the GNU Collaborative International Dictionary of English, Debian's ``dict-gcide``) is mostly
Webster's 1913 with later additions: it has the function words, interjections and informal words
WordNet lacks (AMONGST, EH, NOPE). It is read at build time only, from its dictd index
(``headword<TAB>offset<TAB>length``, numbers in dictd's base64) and its text (``.dict`` or dictzip
``.dict.dz``). A sense marked obsolete, rare, archaic or dialectal is passed over, and so is a bare
cross-reference ("See {Her}") or an entry whose headword is not the word (DOB under DOUPE).
"""
from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_GCIDE = Path("/usr/share/dictd")
#: dictd's base64 digits for offsets and lengths in the index.
_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: GCIDE's part-of-speech abbreviation (the first of a headline) -> the part a definition names.
PARTS = {"n": "noun", "v": "verb", "a": "adjective", "adj": "adjective", "adv": "adverb", "prep": "preposition",
         "pron": "pronoun", "conj": "conjunction", "interj": "interjection"}
#: Labels of a sense a player does not mean today.
_PASSED_OVER = re.compile(r"\[(?:Obs|R|Archaic|Obsoles|Prov|Scot|Dial|Local|Poetic)\b[^\]]*\]", re.I)
_SOURCE_LINE = re.compile(r"^\s*\[[^\]]*(?:Webster|WordNet|PJC|Century|MW10|Chambers|RH|NPD|AS)[^\]]*\]\s*$", re.M)
_HEADWORD = re.compile(r"([A-Za-z][\w\"*`' -]*?)\s*\\[^\\]*\\")
_POS = re.compile(r"^\s*(?:\([^)]*\))?\s*,?\s*([a-z]+)\.")
_NUMBER = re.compile(r"^\s*(?:\d+\.|\([a-z]\))\s*")
#: A headline's inflections before the sense ("pl. Drongos.", "imp. & p. p. Dis"): not a gloss.
_INFLECTION = re.compile(r"^[\s;,]*(?:(?:pl|sing|imp|p\. ?p|p\. ?pr|vb\. ?n|superl|compar)\.\s*[^.\[]*(?:\.|$)[\s;,]*)+")
#: A sense that only names another headword ("Same as {Hooky}"): its sense is that word's.
_SAME_AS = re.compile(r"^Same as ([A-Za-z]+)\b")
#: Longest definition kept, in characters: a gloss, as WordNet's are, not an article.
MAX_LETTERS = 120


class GcideError(ValueError):
    """The GCIDE files are missing or not dictd files (names the file)."""


def _number(digits: str) -> int:
    value = 0
    for digit in digits:
        value = value * 64 + _DIGITS.index(digit)
    return value


def _strip_brackets(text: str) -> str:
    """``text`` without its leading bracketed groups (etymology, inflections), nested brackets and all."""
    text = text.lstrip()
    while text.startswith("["):
        depth = 0
        for i, char in enumerate(text):
            depth += {"[": 1, "]": -1}.get(char, 0)
            if depth == 0:
                text = text[i + 1:].lstrip(" ,.\n")
                break
        else:
            return ""
    return text


def _clean(sense: str) -> str:
    """One sense as a short gloss: markup, examples and quotations out; at most MAX_LETTERS."""
    text = re.sub(r"\s+", " ", sense).strip()
    text = re.split(r'\s*(?:"|--\s*[A-Z]|; as,|Syn:)', text)[0]
    text = re.sub(r";?\s*--\s*", "; ", text)
    text = re.split(r"\.\s+(?:See|Cf)\.?\s", text)[0]
    sentence = re.search(r"\.\s+[A-Z]", text)
    if sentence:
        text = text[:sentence.start()]
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"[{}]", "", text)
    text = re.sub(r"\s+", " ", text).strip(" ;,.")
    if len(text) > MAX_LETTERS:
        cut = max(text.rfind(";", 0, MAX_LETTERS), text.rfind(",", 0, MAX_LETTERS))
        text = text[:cut] if cut > 0 else text[:text.rfind(" ", 0, MAX_LETTERS)]
    return text.strip(" ;,.")


def first_sense(word: str, entry: str) -> tuple[str, str] | None:
    """(part of speech, gloss) of the first current sense of one GCIDE entry for ``word``, or None."""
    head, _, _ = entry.partition("\n")
    matches = list(_HEADWORD.finditer(head))
    if word not in {re.sub(r"[^a-z]", "", m.group(1).lower()) for m in matches}:
        return None  # the word is only mentioned (DOB, under DOUPE)
    rest = entry[matches[-1].end():]
    found = _POS.match(rest)
    if not found or found.group(1) not in PARTS:
        return None
    part = PARTS[found.group(1)]
    body = re.sub(r"^\s*(?:&\s*)?(?:[a-z]+\.\s*(?:&\s*)?)*", "", rest[found.end():])
    body = _SOURCE_LINE.sub("", _strip_brackets(body))
    for paragraph in re.split(r"\n\s*\n|\n(?=\s{0,4}\d+\.\s)", body):
        lines = [line for line in paragraph.split("\n") if line.strip()]
        if not lines or len(lines[0]) - len(lines[0].lstrip()) >= 8:
            continue  # a quotation
        text = _strip_brackets(_INFLECTION.sub("", "\n".join(lines)))
        for _ in range(2):  # "1. (Zool.) A quadrumanous mammal": the number, then the field's label
            text = _NUMBER.sub("", re.sub(r"^\s*\((?:[A-Z][A-Za-z. &]*)\)\s*", "", text))
        if text.lstrip().startswith(("Note:", "Syn:", "{", "See ", "Etym:", "[")) or _PASSED_OVER.search(
                text.split('"')[0]):
            continue
        gloss = _clean(text)
        if gloss and not gloss.lower().startswith("see "):
            return part, gloss
    return None


@dataclass
class Gcide:
    """GCIDE's index and text: ``define`` gives a word's first current sense."""

    index: dict[str, list[tuple[int, int]]]
    text: bytes
    version: str = "unknown"

    def define(self, word: str, part: str | None = None) -> tuple[str, str] | None:
        """(part of speech, gloss) of ``word``'s first current sense over its entries (of ``part`` only,
        when given), or None; a sense that is "Same as" another headword is that headword's first sense
        of the same part of speech (HAH: HA; HOOKEY, n.: HOOKY, n.), once."""
        for offset, length in self.index.get(word, ()):
            entry = self.text[offset:offset + length].decode("utf-8", errors="replace")
            found = first_sense(word, entry)
            if found is None or part is not None and found[0] != part:
                continue
            same = _SAME_AS.match(found[1])
            if same is not None:
                other = self.define(same.group(1).lower(), found[0]) if part is None else None
                found = (found[0], other[1]) if other is not None else None
            if found is not None:
                return found
        return None


def read_gcide(path: Path) -> Gcide:
    """Read ``gcide.index`` and ``gcide.dict.dz`` (or ``gcide.dict``) in ``path``."""
    index_path = path / "gcide.index"
    if not index_path.is_file():
        raise GcideError(f"{path}: no GCIDE here (install Debian's 'dict-gcide' package)")
    index: dict[str, list[tuple[int, int]]] = {}
    for number, line in enumerate(index_path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        fields = line.split("\t")
        if len(fields) != 3:
            raise GcideError(f"{index_path}:{number}: not a dictd index line")
        key = fields[0].lower()
        if re.fullmatch(r"[a-z]+", key):
            try:
                index.setdefault(key, []).append((_number(fields[1]), _number(fields[2])))
            except ValueError:
                raise GcideError(f"{index_path}:{number}: not a dictd index line") from None
    packed = path / "gcide.dict.dz"
    try:
        text = gzip.decompress(packed.read_bytes()) if packed.is_file() else (path / "gcide.dict").read_bytes()
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise GcideError(f"{packed}: not a readable dictd file ({exc})") from None
    return Gcide(index, text)
