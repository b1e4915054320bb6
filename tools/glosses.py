"""The project's own glosses (``tools/glosses.tsv``): definitions written here for words WordNet does not
define (COPAY, MEH, CATTERY, SARNIE; function words and interjections: FROM, AMID, WHITHER, UGH).

One line per sense, tab-separated, the sense a player means first (issue 19)::

    copay<TAB>noun<TAB>the fixed part of a medical bill a patient pays ...
    admins<TAB>form<TAB>admin        a regular form: it shows ADMIN's definitions
    ahchoo<TAB>variant<TAB>achoo     a spelling variant: it shows ACHOO's
    onya<TAB>not<TAB>why             not a word at all: no definition (listed for the word list's judge)

The build (``tools.definitions``) uses a word's glosses only when WordNet does not define it, marks them
as the project's own (``Definition.source``), and refuses a form or variant whose base it cannot define.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dictionaries import PARTS_OF_SPEECH
from tools.build_inputs import KEY_RE, BuildError, tsv_lines

DEFAULT_GLOSSES = Path(__file__).resolve().parent / "glosses.tsv"
#: How a line that is no gloss links its word: to a base word's definitions, or to none.
LINKS = ("form", "variant")
NOT_A_WORD = "not"
#: The longest gloss (FORMAT: short, dictionary-style).
MAX_GLOSS = 90
#: Senses kept per word, as WordNet's per part of speech.
MAX_SENSES = 3


@dataclass
class Glosses:
    """The glosses file, read and checked."""

    #: word -> [(part of speech, gloss)], in the order shown.
    senses: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: word -> (form | variant, base word): the word shows its base's definitions.
    links: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: word -> why it is not a word (a name, a typo, a fragment): for the word list's judge, not the build.
    not_words: dict[str, str] = field(default_factory=dict)
    sha256: str = ""


def read_glosses(path: Path = DEFAULT_GLOSSES) -> Glosses:
    """Parse and check the glosses file; BuildError names the file and line of the first bad line."""
    digest, lines = tsv_lines(path, "the glosses")
    glosses = Glosses(sha256=digest)
    for where, line, fields in lines:
        if len(fields) != 3 or not all(f.strip() == f and f for f in fields):
            raise BuildError(f"{where}: want word<TAB>part of speech|form|variant|not<TAB>text, got {line!r}")
        word, kind, text = fields
        if not KEY_RE.fullmatch(word):
            raise BuildError(f"{where}: {word!r} is not a lower-case a-z word")
        if kind in LINKS or kind == NOT_A_WORD:
            if word in glosses.senses or word in glosses.links or word in glosses.not_words:
                raise BuildError(f"{where}: {word} has other lines: a {kind} line stands alone")
            if kind == NOT_A_WORD:
                glosses.not_words[word] = text
            elif not KEY_RE.fullmatch(text) or text == word:
                raise BuildError(f"{where}: the base of a {kind} is another lower-case a-z word, not {text!r}")
            else:
                glosses.links[word] = (kind, text)
            continue
        if kind not in PARTS_OF_SPEECH:
            raise BuildError(f"{where}: {kind!r} is no part of speech ({', '.join(PARTS_OF_SPEECH)}) "
                             f"nor {', '.join(LINKS)}, {NOT_A_WORD}")
        if len(text) > MAX_GLOSS or text[0].isupper() or text.endswith(".") or '"' in text:
            raise BuildError(f"{where}: a gloss is at most {MAX_GLOSS} characters, starts in lower case and has "
                             f"no final period nor quotes: {text!r}")
        if word in glosses.links or word in glosses.not_words:
            raise BuildError(f"{where}: {word} is already a form, variant or non-word")
        senses = glosses.senses.setdefault(word, [])
        if (kind, text) in senses or len(senses) == MAX_SENSES:
            raise BuildError(f"{where}: {word} repeats a gloss or has more than {MAX_SENSES}")
        senses.append((kind, text))
    return glosses
