"""The regular forms to judge for ``tools/forms_judged.tsv`` (issue 36), in chunks a judge reads in one sitting.

    PYTHONPATH=. python -m tools.form_candidates --out DIR [--chunk 350]

writes into DIR, one spelling a line, upper case, sorted, with what the form claims to be
(``SALIVAS<TAB>SALIVA plural``; where the rule table reads it from another legal base too, that follows:
``CORPSED<TAB>CORPS -ed; or CORPSE -ed``):

- ``moved_NN.txt``: every spelling rule 9 (``tools.word_policy._follow_bases``) moves to the default level today;
  a ``refuse`` judgment keeps it where it was.
- ``refused_NN.txt``: every spelling SCOWL lists as a word at 70, 80 or 95 (or at 95 and rule 4 left out) that
  the rule table reads as a regular form of a legal base (``morphology.form_of`` with ``REGULAR_FORMS``), which is
  not legal today: rule 9's guards or its size limit refused it. An ``accept`` judgment makes it legal. The rule
  table's own guards already drop misspellings (BLOWED: BLOW has BLEW; LOYALER: LOYAL does not grade; STOPED: STOP
  doubles its P), so those are in neither list.

Spellings in a judged sample of ``tests/data/lexicon/`` (they stay as judged there) and spellings already in
``tools/forms_judged.tsv`` are in neither list. The inputs are the build's (SCOWL, WordNet, wordfreq, the overlay,
the judgments); it builds nothing. It also writes ``counts.json`` with the numbers of each list, and the
``accept`` judgments the build does not honour (no regular form of a legal base to the rule table: HUMIDER,
as HUMID does not grade).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dictionaries import DEFAULT_LEVEL, LEVELS, SENSES, morphology
from tools.forms_judged import DEFAULT_FORMS_JUDGED, read_forms_judged
from tools.frequencies import open_frequencies
from tools.scowl import DEFAULT_OVERLAY, DEFAULT_SCOWL
from tools.word_policy import Reading, collect
from tools.wordnet import DEFAULT_WORDNET, WordNet, read_wordnet

SAMPLES = Path(__file__).resolve().parent.parent / "tests" / "data" / "lexicon"
_KINDS = {"past": "-ed", "present_participle": "-ing", "comparative": "comparative -er",
          "superlative": "superlative -est", "agent": "agent -er", "adverb": "-ly"}


def judged_samples(folder: Path = SAMPLES) -> set[str]:
    """Every spelling a judged sample file (``*.tsv``: word<TAB>judgment...) of ``folder`` holds."""
    found: set[str] = set()
    for path in sorted(folder.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                found.add(line.split("\t", 1)[0].strip().lower())
    return found


def kind(base: str, rule: str, wordnet: WordNet) -> str:
    """What a form claims to be, for the judge: ``plural`` of a noun, ``-s`` of a verb, ``-ed``..."""
    if rule != "plural_or_third_person":
        return _KINDS[rule]
    noun, verb = (base, "noun") in wordnet.senses, (base, "verb") in wordnet.senses
    return "-s (verb)" if verb and not noun else "plural or -s (verb)" if verb else "plural"


def refused_forms(readings: dict[str, Reading], legal: set[str]) -> set[str]:
    """The spellings ``readings`` calls "refused" that are not ``legal`` once the overlay is applied."""
    return {key for key, (_base, _rule, what) in readings.items() if what == "refused" and key not in legal}


def describe(key: str, reading: Reading, legal: set[str], wordnet: WordNet) -> str:
    """``BASE kind`` of rule 9's reading, then any other reading the rule table makes from another legal base, by
    WordNet's parts of speech (``; or CORPSE -ed``)."""
    base, rule, _what = reading
    texts = [f"{base.upper()} {kind(base, rule, wordnet)}"]
    for other in sorted(({d.base for d in morphology.derivations(key)} & legal) - {base, key}):
        found = morphology.form_of(key, other.__eq__, lambda b: {p for p in _PARTS if (b, p) in wordnet.senses},
                                   lambda b, p: (b, p) in _irregular(wordnet), morphology.REGULAR_FORMS)
        if found is not None:
            texts.append(f"{other.upper()} {kind(other, found.rule, wordnet)}")
    return "; or ".join(texts)


_PARTS = ("noun", "verb", "adjective", "adverb")
_IRREGULAR: dict[int, set[tuple[str, str]]] = {}


def _irregular(wordnet: WordNet) -> set[tuple[str, str]]:
    """(lemma, part) with an irregular form in WordNet that the rule table does not make (BLOW: BLEW), as rule 9 reads."""
    if id(wordnet) not in _IRREGULAR:
        _IRREGULAR[id(wordnet)] = {(lemma, part) for form, pairs in wordnet.exceptions.items() for part, lemma in pairs
                                   if not any(d.base == lemma for d in morphology.derivations(form))}
    return _IRREGULAR[id(wordnet)]


def write_chunks(out: Path, stem: str, keys: list[str], readings: dict[str, Reading], wordnet: WordNet,
                 size: int, legal: set[str]) -> list[str]:
    """``stem_NN.txt`` files of ``size`` lines each; their names."""
    for old in out.glob(f"{stem}_*.txt"):
        old.unlink()
    chunks = [keys[i:i + size] for i in range(0, len(keys), size)]
    width = max(2, len(str(len(chunks))))
    names = []
    for number, chunk in enumerate(chunks, 1):
        name = f"{stem}_{number:0{width}d}.txt"
        lines = [f"{key.upper()}\t{describe(key, readings[key], legal, wordnet)}" for key in chunk]
        (out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        names.append(name)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.form_candidates", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the chunk files")
    parser.add_argument("--chunk", type=int, default=350, help="spellings per file")
    parser.add_argument("--forms-judged", type=Path, default=DEFAULT_FORMS_JUDGED)
    args = parser.parse_args(argv)
    wordnet = read_wordnet(DEFAULT_WORDNET)
    judged = read_forms_judged(args.forms_judged)
    readings: dict[str, Reading] = {}
    levels, _forms, info = collect(DEFAULT_SCOWL, DEFAULT_OVERLAY, open_frequencies("wordfreq"), wordnet, judged,
                                   readings)
    samples = judged_samples()
    word, default = SENSES.index("word"), LEVELS.index(DEFAULT_LEVEL) + 1
    legal = {key for key, slot in levels.items() if 0 < slot[word] <= default}
    moved_all = info["_changes"]["follows_base"]
    skip = samples | set(judged.verdicts)
    refused_all = refused_forms(readings, legal)
    moved, refused = sorted(set(moved_all) - skip), sorted(refused_all - skip)
    unhonoured = sorted(key.upper() for key in judged.accepted() if key not in legal)
    args.out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Any] = {
        "moved_by_rule_9": len(moved_all), "moved_listed": len(moved),
        "moved_files": write_chunks(args.out, "moved", moved, readings, wordnet, args.chunk, legal),
        "refused_read_as_forms": len(refused_all), "refused_listed": len(refused),
        "refused_files": write_chunks(args.out, "refused", refused, readings, wordnet, args.chunk, legal),
        "judged_accepted_moved": len(info["_changes"]["judged_forms"]),
        "judged_sample_spellings": len(samples), "already_in_forms_judged": len(judged.verdicts),
        "accepts_not_honoured": unhonoured,
        "refused_by_size": {str(size): sum(1 for k in refused if levels.get(k, [0])[word] == LEVELS.index(size) + 1)
                            for size in (70, 80, 95)} | {
            "95, left out by rule 4": sum(1 for k in refused if k not in levels),
            "a reason rule took the word sense (a surname, a name)": sum(1 for k in refused if k in levels and not levels[k][word])},
    }
    (args.out / "counts.json").write_text(json.dumps(counts, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in counts.items() if not k.endswith("_files")}))
    if unhonoured:
        print(f"accept judgments the rule table cannot honour: {' '.join(unhonoured)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
