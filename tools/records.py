"""One record per key (``words.records``): what a verdict needs of a spelling, in one read.

    python -m tools.records [DIRECTORY]      (default: dictionaries/data)

Reads only the built files of DIRECTORY (``words.marisa``, ``words.levels``, ``forms.marisa``) and the
decks' tables (``dictionaries.deck``), writes ``words.records``, ``records.forms`` and ``records.levels`` beside them, and
records their sizes and checksums in ``metadata.json`` under "records". Deterministic: the same
files give byte-identical output. ``tools/build_dictionary.py`` calls ``write_records`` as its last
step; run the command after any other change to the word files.

A record (``dictionaries.RECORD_FORMAT``, 8 bytes) holds the key's level codes per sense (as an entry
of ``records.levels``: there are a few hundred), whether the standard and double decks can spell it, and
the spelling the verdict's
dictionary reason names (``verdict.shown_form`` of ``verdict.reason_sense``), so that the service's
verdict of a word costs one trie look-up and one record (service/verdict_text.py).
"""
from __future__ import annotations

import hashlib
import json
import struct
import sys
from json.encoder import encode_basestring  # as the verdicts' JSON writes it
from pathlib import Path
from typing import Any

import marisa_trie

from dictionaries import (
    DATA_DIR,
    FORMS_TRIE,
    METADATA,
    PHRASE_PIECE,
    PHRASE_PIECE_INDEX,
    RECORD_DOUBLE,
    RECORD_FILES,
    RECORD_FORM,
    RECORD_FORMAT,
    RECORD_FORMS,
    RECORD_LEVELS,
    RECORD_STANDARD,
    SENSES,
    WORDS_LEVELS,
    WORDS_RECORDS,
    WORDS_TRIE,
)
from dictionaries.deck import DOUBLE, STANDARD
from dictionaries.dictionary import records_deck_table
from dictionaries.verdict import reason_sense

_SENSE_BYTE = {**{sense: i for i, sense in enumerate(SENSES)}, PHRASE_PIECE: PHRASE_PIECE_INDEX}


def write_records(out: Path) -> dict[str, Any]:
    """Write the records of the built files in ``out``; their entry for ``metadata.json``."""
    words = marisa_trie.Trie().mmap(str(out / WORDS_TRIE))
    forms = marisa_trie.BytesTrie().mmap(str(out / FORMS_TRIE))
    levels = (out / WORDS_LEVELS).read_bytes()
    n_senses = len(SENSES)
    record = struct.Struct(RECORD_FORMAT)
    records = bytearray(record.size * len(words))
    blob = bytearray()
    offsets: dict[bytes, int] = {}
    distinct = sorted({levels[i:i + n_senses] for i in range(0, len(levels), n_senses)})
    entry_of = {senses: i for i, senses in enumerate(distinct)}
    for key, index in words.iteritems():
        senses = levels[index * n_senses:(index + 1) * n_senses]
        sense, _code = reason_sense(senses)
        wanted = _SENSE_BYTE[sense]
        form, flags = b"", 0
        for value in forms.get(key, ()):
            if value[0] == wanted:
                # A phrase piece names its phrase, even an empty one; an exclusion a spelling other than the key.
                text = value[1:].decode("utf-8")
                if sense == PHRASE_PIECE or (text and text != key):
                    form, flags = encode_basestring(text)[1:-1].encode("utf-8"), RECORD_FORM
                break
        if len(form) > 255:
            raise ValueError(f"{key}: a form of {len(form)} bytes does not fit a record")
        offset = offsets.get(form)
        if offset is None:
            offset = offsets[form] = len(blob)
            blob += form
        upper = key.upper()
        flags |= (RECORD_STANDARD if STANDARD.can_spell(upper) else 0) | (RECORD_DOUBLE if DOUBLE.can_spell(upper) else 0)
        record.pack_into(records, index * record.size, entry_of[senses], flags, len(form), offset)
    (out / WORDS_RECORDS).write_bytes(bytes(records))
    (out / RECORD_FORMS).write_bytes(bytes(blob))
    (out / RECORD_LEVELS).write_bytes(b"".join(distinct))
    files = {name: {"bytes": (out / name).stat().st_size,
                    "sha256": hashlib.sha256((out / name).read_bytes()).hexdigest()} for name in RECORD_FILES}
    return {"format": RECORD_FORMAT, "deck": records_deck_table(STANDARD), "files": files}


def main(argv: list[str] | None = None) -> int:
    """Write the records of a built directory and record them in its metadata.json."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else Path(DATA_DIR)
    meta_path = out / METADATA
    metadata = json.loads(meta_path.read_text(encoding="utf-8"))
    metadata["records"] = write_records(out)
    meta_path.write_text(json.dumps(metadata, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {', '.join(RECORD_FILES)} into {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
