"""Build the compact word data from an installed SCOWL (Debian's ``scowl`` package) plus the overlay.

    python -m dictionaries.build [--scowl /usr/share/dict/scowl] [--overlay dictionaries/overlay.txt] [--out dictionaries/data]

The output is deterministic: the same inputs give byte-identical files.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import struct
import sys
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import marisa_trie

from dictionaries import (
    DATA_DIR,
    DATA_FILES,
    FORMAT_VERSION,
    FORMS_TRIE,
    LEVELS,
    MAX_WORD_LETTERS,
    METADATA,
    NODE_FORMAT,
    RACKS_NODES,
    RACKS_TRIE,
    RACKS_WORDS,
    SENSES,
    WORD_ID_FORMAT,
    WORDS_LEVELS,
    WORDS_TRIE,
)

#: Spellings whose lists count (COLOR and COLOUR both play).
SPELLINGS: tuple[str, ...] = ("english", "american", "british", "british_z", "canadian", "australian", "variant_1")
CATEGORIES: tuple[str, ...] = ("words", "proper-names", "upper", "abbreviations", "contractions")
DEFAULT_SCOWL = Path("/usr/share/dict/scowl")
DEFAULT_OVERLAY = Path(__file__).resolve().parent / "overlay.txt"
SOURCE = "SCOWL (Spell Checker Oriented Word Lists) by Kevin Atkinson, Debian package scowl"
_SPELLING_RE = re.compile(r"[A-Za-z.']+")
_FILE_RE = re.compile(r"^(?P<spelling>[a-z_0-9]+)-(?P<category>[a-z-]+)\.(?P<size>\d+)$")
_OVERLAY_RE = re.compile(r"^(?P<key>[a-z]+)\s+(?P<sense>[a-z_]+)\s+(?P<level>\d+)\s+#\s*(?P<why>\S.*)$")


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

    Possessives ('s) are dropped; other apostrophes mark contractions; an all-capital entry is an
    acronym; a capitalised one a proper noun; the category decides the rest.
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
    if "'" in text or category == "contractions":
        sense = "contraction"
    elif letters.isupper() and len(letters) > 1:
        sense = "acronym"
    elif category == "abbreviations":
        sense = "abbreviation"
    elif category == "proper-names" or letters[0].isupper():
        sense = "proper_noun"
    else:
        sense = "word"
    return Entry(key, sense, text)


def scowl_files(scowl: Path) -> list[tuple[str, str, int, Path]]:
    """(spelling, category, size, path) of the SCOWL files that count, sorted."""
    if not scowl.is_dir():
        raise BuildError(f"{scowl}: no SCOWL word lists here (install Debian's 'scowl' package)")
    found = []
    for path in sorted(scowl.iterdir()):
        match = _FILE_RE.match(path.name)
        if not match:
            continue
        spelling, category, size = match["spelling"], match["category"], int(match["size"])
        if spelling in SPELLINGS and category in CATEGORIES and size in LEVELS:
            found.append((spelling, category, size, path))
    if not found:
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
        if sense not in SENSES:
            raise BuildError(f"{path}:{number}: sense {sense!r} is not one of {', '.join(SENSES)}")
        if level not in LEVELS:
            raise BuildError(f"{path}:{number}: level {level} is not a SCOWL size {LEVELS}")
        overlay[match["key"]].append((sense, level, match["why"].strip()))
    return overlay


def collect(scowl: Path, overlay_path: Path) -> tuple[dict[str, list[int]], dict[tuple[str, str], tuple[int, str]], dict]:
    """Merge the lists: key -> level per sense (0 = absent), the first form per (key, sense), counts."""
    levels: dict[str, list[int]] = defaultdict(lambda: [0] * len(SENSES))
    forms: dict[tuple[str, str], tuple[int, str]] = {}
    files = scowl_files(scowl)
    raw_counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for spelling, category, size, path in files:
        code = LEVELS.index(size) + 1
        for raw in path.read_text(encoding="utf-8").splitlines():
            entry = classify(raw, category)
            if entry is None:
                continue
            raw_counts[category][str(size)] += 1
            index = SENSES.index(entry.sense)
            slot = levels[entry.key]
            if slot[index] == 0 or code < slot[index]:
                slot[index] = code
            previous = forms.get((entry.key, entry.sense))
            if previous is None or (code, entry.form) < previous:
                forms[(entry.key, entry.sense)] = (code, entry.form)
    overlay = read_overlay(overlay_path)
    for key, senses in sorted(overlay.items()):
        # An overlay entry says what the spelling is: it replaces every sense SCOWL gave it.
        slot = [0] * len(SENSES)
        for sense, level, _why in senses:
            slot[SENSES.index(sense)] = LEVELS.index(level) + 1
        levels[key] = slot
        for sense in SENSES:
            forms.pop((key, sense), None)
        for sense, level, _why in senses:
            forms[(key, sense)] = (LEVELS.index(level) + 1, key.upper() if sense == "acronym" else key)
    info = {
        "scowl_files": len(files),
        "scowl_entries_kept": {cat: dict(sorted(sizes.items(), key=lambda kv: int(kv[0]))) for cat, sizes in sorted(raw_counts.items())},
        "overlay_entries": sum(len(v) for v in overlay.values()),
    }
    return dict(levels), forms, info


def build(scowl: Path, overlay_path: Path, out: Path, version: str) -> dict:
    """Write every data file and ``metadata.json`` into ``out``; return the metadata."""
    levels, forms, info = collect(scowl, overlay_path)
    out.mkdir(parents=True, exist_ok=True)

    words = marisa_trie.Trie(sorted(levels))
    words.save(str(out / WORDS_TRIE))
    table = bytearray(len(SENSES) * len(words))
    for key, slot in levels.items():
        i = words[key] * len(SENSES)
        table[i:i + len(SENSES)] = bytes(slot)
    (out / WORDS_LEVELS).write_bytes(bytes(table))

    form_items = sorted(
        (key, bytes([SENSES.index(sense)]) + form.encode("utf-8"))
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
        per_level = defaultdict(int)
        for slot in levels.values():
            if slot[sense_i]:
                per_level[str(LEVELS[slot[sense_i] - 1])] += 1
        counts[sense] = dict(sorted(per_level.items(), key=lambda kv: int(kv[0])))
    digests = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in DATA_FILES}
    sizes = {name: (out / name).stat().st_size for name in DATA_FILES}
    checksum = hashlib.sha256("".join(f"{n}:{digests[n]}\n" for n in DATA_FILES).encode()).hexdigest()
    metadata = {
        "format_version": FORMAT_VERSION,
        "source": SOURCE,
        "version": version,
        "spellings": list(SPELLINGS),
        "categories": list(CATEGORIES),
        "levels": list(LEVELS),
        "senses": list(SENSES),
        "keys": len(words),
        "rack_nodes": len(racks),
        "rack_words": len(word_ids),
        "counts_by_sense_and_level": counts,
        **info,
        "overlay_sha256": hashlib.sha256(overlay_path.read_bytes()).hexdigest(),
        "files": {name: {"bytes": sizes[name], "sha256": digests[name]} for name in DATA_FILES},
        "checksum": checksum,
    }
    (out / METADATA).write_text(json.dumps(metadata, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return metadata


def scowl_version(scowl: Path) -> str:
    """The Debian package version when the lists are the installed package's, else 'unknown'."""
    status = Path("/var/lib/dpkg/status")
    if scowl.resolve() == DEFAULT_SCOWL and status.is_file():
        block = re.search(r"^Package: scowl\n(?:.+\n)*?Version: (\S+)", status.read_text(errors="replace"), re.M)
        if block:
            return block.group(1)
    return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dictionaries.build", description=__doc__.splitlines()[0])
    parser.add_argument("--scowl", type=Path, default=DEFAULT_SCOWL, help="directory of SCOWL final lists")
    parser.add_argument("--overlay", type=Path, default=DEFAULT_OVERLAY, help="hand-kept corrections")
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="where the built files go")
    parser.add_argument("--source-version", default=None, help="SCOWL version to record (default: from dpkg)")
    args = parser.parse_args(argv)
    try:
        metadata = build(args.scowl, args.overlay, args.out, args.source_version or scowl_version(args.scowl))
    except (BuildError, OSError, UnicodeDecodeError) as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    print(f"built {metadata['keys']} spellings, {metadata['rack_words']} rack words into {args.out} "
          f"(checksum {metadata['checksum'][:12]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
