"""The word engine both faces stand on: the built word data, its format, and the word logic.

Modules: ``rules`` (the game's numbers), ``deck`` (cards and points), ``dictionary`` (loading,
checksums, look-ups, rack search), ``verdict`` (is a word legal, and if not why not),
``definitions`` (WordNet senses), ``morphology`` (which base word a regular form is a form of),
``errors``, ``i18n`` (translations), ``json_depth`` (JSON whose nesting is bounded before it is
parsed). The files are built by ``tools/build_dictionary.py`` (SCOWL, wordfreq and WordNet), outside
the package. Nothing here imports Flask, Click or the referee. This module holds the format both the
builder and the loader agree on. The built files live in ``dictionaries/data`` and ship as package
data; ``UW_DICTIONARY`` can point to another directory holding the same files.
"""
from __future__ import annotations

import os

from dictionaries.rules import MAX_WORD_LETTERS as MAX_WORD_LETTERS  # the format's longest key

#: Bump when the layout of the built files changes; the loader refuses other versions.
FORMAT_VERSION = 1

#: SCOWL sizes, most common first. A level code is the index + 1; 0 means "not in that list".
LEVELS: tuple[int, ...] = (10, 20, 35, 40, 50, 55, 60, 70, 80, 95)
DEFAULT_LEVEL = 60

#: The senses a spelling can have, in the order of their bytes in ``words.levels``.
#: After ``word``, this is also the order of precedence of the exclusions on a tie.
SENSES: tuple[str, ...] = ("word", "proper_noun", "abbreviation", "acronym", "contraction")
#: A word sense that is only a piece of a phrase (QUO in status quo) carries a form under this index in
#: the forms trie: the phrase, which the verdict names (issue 19). Not a sense of its own in words.levels.
PHRASE_PIECE = "phrase_piece"
PHRASE_PIECE_INDEX = len(SENSES)

#: Files of a built dictionary.
WORDS_TRIE = "words.marisa"      # every spelling key (a-z), any sense
WORDS_LEVELS = "words.levels"    # len(SENSES) level codes per key id
FORMS_TRIE = "forms.marisa"      # key -> sense byte + the spelling as SCOWL writes it (for messages)
RACKS_TRIE = "racks.marisa"      # every prefix of the sorted letters of a playable word
RACKS_NODES = "racks.nodes"      # per rack node: child mask, subtree min level, own min level, word count, first word
RACKS_WORDS = "racks.words"      # word ids (into words.marisa), grouped by rack node
METADATA = "metadata.json"
DATA_FILES: tuple[str, ...] = (WORDS_TRIE, WORDS_LEVELS, FORMS_TRIE, RACKS_TRIE, RACKS_NODES, RACKS_WORDS)
NODE_FORMAT = "<IBBHI"           # struct format of one rack node record (12 bytes)
WORD_ID_FORMAT = "<I"

#: One record per key, for the verdicts' hot path (issue 37): what a verdict needs of a key in one read,
#: derived from the files above by ``python -m tools.records`` (also the build's last step). Outside
#: DATA_FILES like the definitions: ``metadata.json`` keeps their sizes and checksums under "records".
WORDS_RECORDS = "words.records"  # per key id: RECORD_FORMAT
RECORD_FORMS = "records.forms"   # the spellings records point to, as JSON string content, one after another
RECORD_LEVELS = "records.levels"  # the distinct level codes per sense (5 bytes each, as in words.levels)
#: The key's entry in RECORD_LEVELS, flags (RECORD_*), the form's length in bytes, its offset in RECORD_FORMS.
RECORD_FORMAT = "<HBBI"
RECORD_STANDARD = 1  # the standard deck holds enough cards of every letter
RECORD_DOUBLE = 2    # the double deck does
RECORD_FORM = 4      # the dictionary reason names a form (its length may be 0: a phrase piece of no phrase)
RECORD_FILES: tuple[str, ...] = (WORDS_RECORDS, RECORD_FORMS, RECORD_LEVELS)

#: Definitions (WordNet glosses) ship beside the word files but outside DATA_FILES: the word
#: loader never reads them, and ``metadata.json`` keeps their sizes and checksums under "definitions".
DEFINITIONS_TRIE = "definitions.marisa"  # key -> gloss ids, 3 bytes little-endian each, in display order
DEFINITIONS_TEXT = "definitions.text"    # header, gloss offsets, then each gloss: part-of-speech byte + UTF-8 text
#: Set in a gloss's part-of-speech byte when the gloss is GCIDE's, not WordNet's (issue 19).
GCIDE_FLAG = 0x80
#: Set instead when the gloss is the project's own (tools/glosses.tsv: words no source defines).
OWN_FLAG = 0x40
#: Definition.source by those flags.
SOURCE_NAMES: dict[int, str] = {0: "WordNet", GCIDE_FLAG: "GCIDE", OWN_FLAG: "own glosses"}
DEFINITION_FILES: tuple[str, ...] = (DEFINITIONS_TRIE, DEFINITIONS_TEXT)
DEFINITIONS_MAGIC = b"UWDEFS1\n"         # first 8 bytes of DEFINITIONS_TEXT; then uint32 count, count+1 uint32 offsets
DEFINITION_ID_BYTES = 3
#: Part-of-speech byte -> name, as the API shows it: WordNet's four, then the function words' (GCIDE's).
PARTS_OF_SPEECH: tuple[str, ...] = ("noun", "verb", "adjective", "adverb",
                                    "preposition", "pronoun", "conjunction", "interjection")
#: The parts of speech WordNet has.
WORDNET_PARTS: tuple[str, ...] = PARTS_OF_SPEECH[:4]

#: The shipped built files (a str: pathlib costs more to import than a word check takes).
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
