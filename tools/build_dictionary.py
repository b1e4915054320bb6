"""Build the compact word data from SCOWL, a frequency list and WordNet, plus the overlay.

    python -m tools.build_dictionary [--scowl /usr/share/dict/scowl] [--wordnet /usr/share/wordnet]
                                   [--frequencies wordfreq] [--glosses tools/glosses.tsv] [--overlay tools/overlay.txt]
                                   [--forms-judged tools/forms_judged.tsv]
                                   [--out dictionaries/data]

Build-time inputs only (none is needed at run time): Debian's ``scowl`` and ``wordnet-base``
packages and the ``wordfreq`` package (``pip install '.[build]'``). The word policy is SCOWL's
levels moved by how often people write a spelling today (see ``tools.word_policy.apply_policy`` and
LEXICON.md); the overlay has the last word. The output is deterministic: the same inputs give
byte-identical files.

This module writes the files and is the command; its inputs are read by ``tools.scowl`` (the lists
and the overlay), ``tools.frequencies``, ``tools.wordnet`` and ``tools.glosses``, judged by
``tools.word_policy`` and defined by ``tools.definitions``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import struct
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import marisa_trie

from dictionaries import (
    DATA_DIR,
    DATA_FILES,
    DEFINITION_FILES,
    FORMAT_VERSION,
    FORMS_TRIE,
    LEVELS,
    MAX_WORD_LETTERS,
    METADATA,
    NODE_FORMAT,
    PHRASE_PIECE,
    PHRASE_PIECE_INDEX,
    RACKS_NODES,
    RACKS_TRIE,
    RACKS_WORDS,
    SENSES,
    WORD_ID_FORMAT,
    WORDS_LEVELS,
    WORDS_TRIE,
)
from tools.build_inputs import BuildError
from tools.definitions import build_definitions
from tools.forms_judged import DEFAULT_FORMS_JUDGED, FormsJudged, read_forms_judged
from tools.frequencies import FOREIGN_LANGUAGES, Frequencies, open_frequencies
from tools.glosses import DEFAULT_GLOSSES, Glosses, read_glosses
from tools.records import write_records
from tools.scowl import CATEGORIES, DEFAULT_OVERLAY, DEFAULT_SCOWL, RARE_SPELLINGS, SOURCE, SPELLINGS
from tools.word_policy import (
    COMMON_ZIPF,
    DOUBTFUL_LEVEL,
    FOREIGN_MARGIN,
    FOREIGN_WORD_LEVEL,
    FOREIGN_WORD_MARGIN,
    PROMOTABLE_LEVELS,
    RARE_ZIPF,
    collect,
)
from tools.wordnet import DEFAULT_WORDNET, WordNet, read_wordnet


def build(scowl: Path, overlay_path: Path, out: Path, version: str, *, frequencies: Frequencies | None,
          wordnet: WordNet | None, glosses: Glosses | None = None,
          judged: FormsJudged | None = None) -> dict[str, Any]:
    """Write every data file and ``metadata.json`` into ``out``; return the metadata.

    ``frequencies`` and ``wordnet`` None build SCOWL's levels alone and no definitions (the
    baseline the lexicon report compares with); ``glosses`` (the project's own) define words WordNet lacks;
    ``judged`` (the project's own judgments of forms, ``tools/forms_judged.tsv``) has the last word in rule 9.
    """
    levels, forms, info = collect(scowl, overlay_path, frequencies, wordnet, judged)
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
                                        glosses)
        sources.append({
            "name": "WordNet",
            "role": "definitions; tells a real word from a stray form (the policy)",
            "version": wordnet.version,
            "licence": "WordNet 3.0 licence, Princeton University (see WordNet-LICENSE)",
            "url": "https://wordnet.princeton.edu/",
            "shipped": "yes: glosses in definitions.text",
        })
        if glosses is not None:
            sources.append({
                "name": "own glosses",
                "role": "definitions of words WordNet has none for (or only the rule table's guess), written for this project",
                "version": f"sha256 {glosses.sha256[:12]} of tools/glosses.tsv",
                "licence": "the project's licence (see LICENSE)",
                "url": "tools/glosses.tsv in the project's repository",
                "shipped": "yes: glosses in definitions.text, marked as the project's own",
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
        "forms_judged_sha256": judged.sha256 if judged is not None else None,
        "files": {name: {"bytes": sizes[name], "sha256": digests[name]} for name in DATA_FILES},
        "checksum": checksum,
        "definitions": definitions,
        "records": write_records(out),  # derived from the files above (tools/records.py)
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
    parser.add_argument("--glosses", type=Path, default=DEFAULT_GLOSSES,
                        help="the project's own glosses for words no source defines")
    parser.add_argument("--forms-judged", type=Path, default=DEFAULT_FORMS_JUDGED,
                        help="the project's own judgments of regular forms (rule 9)")
    parser.add_argument("--overlay", type=Path, default=DEFAULT_OVERLAY, help="hand-kept corrections")
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="where the built files go")
    parser.add_argument("--source-version", default=None, help="SCOWL version to record (default: from dpkg)")
    args = parser.parse_args(argv)
    try:
        if not args.scowl.is_dir():
            raise BuildError(f"{args.scowl}: no SCOWL word lists here (install Debian's 'scowl' package)")
        wordnet = read_wordnet(args.wordnet)
        wordnet.version = package_version("wordnet-base", args.wordnet, DEFAULT_WORDNET)
        glosses = read_glosses(args.glosses)
        judged = read_forms_judged(args.forms_judged)
        frequencies = open_frequencies(args.frequencies)
        metadata = build(args.scowl, args.overlay, args.out, args.source_version or scowl_version(args.scowl),
                         frequencies=frequencies, wordnet=wordnet, glosses=glosses, judged=judged)
    except (BuildError, OSError, UnicodeDecodeError) as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    print(f"built {metadata['keys']} spellings, {metadata['rack_words']} rack words, "
          f"{metadata['definitions']['entries']} defined spellings into {args.out} "
          f"(checksum {metadata['checksum'][:12]}; policy {metadata['policy_changes']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
