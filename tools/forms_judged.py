"""The project's own judgments of regular forms (``tools/forms_judged.tsv``, issue 36): which spellings a careful
table plays, for the forms SCOWL, WordNet and wordfreq cannot tell apart (countable from mass nouns: SALIVAS;
verbed nouns of things: CHORED, HEIRED real, SWORDED made up).

One line per spelling, tab-separated::

    chored<TAB>accept<TAB>Collins: chore, to do chores
    salivas<TAB>refuse<TAB>a mass noun

Rule 9 (``tools.word_policy._follow_bases``) reads it: a ``refuse`` spelling is never moved by rule 9; an
``accept`` spelling that the rule table reads as a regular form of a legal base, listed by SCOWL at 70, 80 or 95,
becomes a word at the default level even where one of rule 9's own guards refused it. The rule table's guards
still win (BLOWED, LOYALER, STOPED are no regular form, so ``accept`` moves nothing).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tools.build_inputs import KEY_RE, BuildError, tsv_lines

DEFAULT_FORMS_JUDGED = Path(__file__).resolve().parent / "forms_judged.tsv"
ACCEPT, REFUSE = "accept", "refuse"


@dataclass
class FormsJudged:
    """The judgments file, read and checked: spelling (lower case) -> ACCEPT or REFUSE."""

    verdicts: dict[str, str] = field(default_factory=dict)
    sha256: str = ""

    def accepted(self) -> set[str]:
        return {key for key, verdict in self.verdicts.items() if verdict == ACCEPT}

    def refused(self) -> set[str]:
        return {key for key, verdict in self.verdicts.items() if verdict == REFUSE}


def read_forms_judged(path: Path = DEFAULT_FORMS_JUDGED) -> FormsJudged:
    """Parse and check the judgments; BuildError names the file and line of the first bad or repeated line."""
    digest, lines = tsv_lines(path, "the judged forms")
    judged = FormsJudged(sha256=digest)
    for where, line, fields in lines:
        if len(fields) != 3 or fields[1] not in (ACCEPT, REFUSE):
            raise BuildError(f"{where}: want WORD<TAB>accept|refuse<TAB>note, got {line!r}")
        key = fields[0].lower()
        if not KEY_RE.fullmatch(key):
            raise BuildError(f"{where}: {fields[0]!r} is no spelling of letters a-z")
        if key in judged.verdicts:
            raise BuildError(f"{where}: {fields[0]} is judged twice")
        judged.verdicts[key] = fields[1]
    return judged
