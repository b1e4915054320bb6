"""The frequency signal: Zipf frequencies of lower-case spellings in English and the best of a few other
languages, from the ``wordfreq`` package or a small file (the tests' toy input)."""
from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.build_inputs import KEY_RE, BuildError

#: The other languages read: a spelling written more in one of them is a foreign word (the word policy).
FOREIGN_LANGUAGES: tuple[str, ...] = ("fr", "es", "de", "it", "pt")


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
                   if KEY_RE.fullmatch(word)}

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
            if len(parts) != 3 or not KEY_RE.fullmatch(parts[0]):
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
