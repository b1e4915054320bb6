"""The definitions shipped with the dictionary: which WordNet senses each spelling shows and in what order,
those built from a base word (plurals, tenses, comparatives), the project's own glosses (``tools.glosses``)
for the words WordNet lacks, and their files."""
from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import Any

import marisa_trie

from dictionaries import (
    DEFINITION_FILES,
    DEFINITION_ID_BYTES,
    DEFINITIONS_MAGIC,
    DEFINITIONS_TEXT,
    DEFINITIONS_TRIE,
    OWN_FLAG,
    PARTS_OF_SPEECH,
    WORDNET_PARTS,
    morphology,
)
from tools.build_inputs import KEY_RE, BuildError
from tools.glosses import Glosses
from tools.wordnet import WordNet

#: Senses shown per part of speech.
DEFINITIONS_PER_PART = 3


def definition_ids(wordnet: WordNet, key: str, names: bool = True, any_part: bool = False) -> list[tuple[str, int]]:
    """(part of speech, synset offset) to show for ``key``, in display order (issue 19).

    The key's own senses come first (BACKER: one who backs, before BACK), then the lemma WordNet's
    exception lists name for an irregular form (TESTES: TESTIS, before TEST), then its other lemmas' (TAPS
    reaches TAP), or, when WordNet reaches none, the base the morphology rules read it as (DEEDED:
    DEED; a verb form may borrow a noun's senses and a plural a verb's, and of any part when ``any_part``
    (VISUALS: the adjective; the build's last resort), a comparative only an adjective's: CURER is no
    "more cure"). A name's sense is dropped (RAVELS: not Maurice Ravel) while
    another is left, and always when ``names`` is False (WHO: not the World Health Organization, when
    another source defines the word). Within a part of speech the senses tagged most often in WordNet's corpus come first
    (cntlist); among senses no count tells apart, a plant's goes after its food's (VANILLA the flavouring,
    not the orchid), then they go by how central the sense is for the word: its semantic
    links, divided by the word's place in the synset (FINS: the fish's organ, whose synset FIN heads,
    before five, 5, V, ... fin), then WordNet's order. Parts of speech by the same counts.
    DEFINITIONS_PER_PART per part of speech.
    """
    bases, own_lemma = wordnet.bases(key), key
    if not bases and key in wordnet.closed:
        bases = list(wordnet.closed[key])  # MOCKUP: WordNet's mock-up
        own_lemma = bases[0][1]
    if not bases:
        for derivation in morphology.derivations(key):
            if derivation.rule in _DEFINED_THROUGH and derivation.base in wordnet.closed:
                bases = list(wordnet.closed[derivation.base])  # MOCKUPS: mock-up
                own_lemma = bases[0][1]
                break
            if derivation.rule in _DEFINED_THROUGH:
                # DEEDED: WordNet has DEED only as a noun, whose senses are the nearest it has
                bases = wordnet.bases(derivation.base, derivation.needs) or (
                    wordnet.bases(derivation.base, WORDNET_PARTS if any_part else _NOUN_OR_VERB)
                    if derivation.rule in _ANY_PART else [])
                if bases:
                    own_lemma = derivation.base  # BLUESY: BLUES, before BLUE
                    break
    irregular = {(part, lemma) for part, lemma in wordnet.exceptions.get(key, ())}
    # Issue 36: the base the project's rule table reads (BEES: BEE; SINES: SINE) before the shorter stem
    # WordNet's morphy also strips "-es" to (BE, SIN), whose commoner senses would otherwise lead.
    read = {d.base for d in morphology.derivations(key) if d.rule in _DEFINED_THROUGH}
    verb_form = any(d.rule in _VERB_FORMS and (d.base, "verb") in wordnet.senses for d in morphology.derivations(key))
    candidates: list[tuple[int, int, int, int, float, int, str, int]] = []
    tagged: dict[str, int] = {}  # senses of the part tagged at all (WordNet's index): the tie-break without cntlist
    heads: dict[str, int] = {}  # the best place of the word in a synset of the part: 0 when it heads one
    for part, lemma in bases:
        tagged[part] = tagged.get(part, 0) + wordnet.tagged.get((lemma, part), 0)
        rank = 0 if lemma == own_lemma else 1 if (part, lemma) in irregular else 2 if lemma in read else 3
        if rank == 0 and verb_form and part != "verb" and _yields_to_verb(wordnet, key, lemma, part, bases):
            rank = 2  # COPING, CRUSHED: the form's own noun or adjective after the verb's senses
        if verb_form and part == "verb" and rank > 0:
            rank = 1 if rank == 2 else rank  # GUESTED, DOLED: a verb form leads with the verb
        heads[part] = min(heads.get(part, 99), min((wordnet.places.get((part, o, lemma), 99)
                                                    for o in wordnet.senses[(lemma, part)]), default=99))
        for index, offset in enumerate(wordnet.senses[(lemma, part)]):
            if (part, offset) not in wordnet.glosses:
                continue
            count = wordnet.counts.get((lemma, part, offset), 0)
            central = centrality(wordnet, part, offset, lemma)
            named = 1 if (part, offset, lemma) in wordnet.named_senses else 0
            plant = 1 if wordnet.lexfiles.get((part, offset)) == _PLANTS and part == "noun" and any(
                wordnet.lexfiles.get(("noun", o)) == _FOODS for o in wordnet.senses[(lemma, part)]) else 0
            candidates.append((rank, named, -count, plant, -central, index, part, offset))
    if not names or own_lemma != key or any(not named for _rank, named, *_rest in candidates):
        candidates = [c for c in candidates if not c[1]]  # a name's sense is no sense of a lower-case word
    groups: dict[tuple[int, str], list[int]] = {}  # (rank, part) -> offsets: the word's own senses first
    counted: dict[tuple[int, str], int] = {}
    shown: dict[str, list[int]] = {}
    for rank, _named, negative, _plant, _central, _index, part, offset in sorted(candidates,
                                                                             key=lambda c: (c[0], *c[2:6])):
        counted[(rank, part)] = counted.get((rank, part), 0) - negative
        chosen = shown.setdefault(part, [])
        if len(chosen) < DEFINITIONS_PER_PART and offset not in chosen:
            chosen.append(offset)
            groups.setdefault((rank, part), []).append(offset)
    # No count tells the parts apart: an adverb the word heads a synset of first (NOWADAYS: "in these times",
    # before the noun synset it is second in); nouns and verbs keep WordNet's order (SCAMP, POTHER, VICTUAL).
    order = sorted(groups, key=lambda group: (group[0], -counted[group], -tagged[group[1]],
                                              not (group[1] == "adverb" and heads[group[1]] == 0),
                                              PARTS_OF_SPEECH.index(group[1])))
    return [(part, offset) for rank, part in order for offset in groups[(rank, part)]]


def _yields_to_verb(wordnet: WordNet, key: str, lemma: str, part: str, bases: list[tuple[str, str]]) -> bool:
    """Whether a verb form's own noun or adjective goes after its verb's senses: when the corpus met the verb
    more than once and the form's own sense at most once (COPING: a wall's top course, after COPE), or, for
    an -ed adjective, less often than the verb (CRUSHED: "treated to have a wrinkled look", its adjective met
    3 times, after CRUSH, met 12 times; not CHUFFED "very pleased", whose verb "blow hard" the corpus met once)."""
    own = _corpus_count(wordnet, lemma, part)
    for derivation in morphology.derivations(key):
        if derivation.rule not in _VERB_FORMS or ("verb", derivation.base) not in bases:
            continue
        verb = _corpus_count(wordnet, derivation.base, "verb")
        if verb > 1 and (own <= 1 or (derivation.rule == "past" and part == "adjective" and own < verb)):
            return True
    return False


def _corpus_count(wordnet: WordNet, lemma: str, part: str) -> int:
    """How often WordNet's tagged corpus met ``lemma`` in ``part`` (cntlist), over all its senses."""
    return sum(wordnet.counts.get((lemma, part, offset), 0) for offset in wordnet.senses.get((lemma, part), ()))


def centrality(wordnet: WordNet, part: str, offset: int, lemma: str) -> float:
    """How central a sense is for ``lemma`` when no corpus count says: the synset's semantic links
    divided by the lemma's place in it (1 when it heads the synset)."""
    return wordnet.links.get((part, offset), 0) / (wordnet.places.get((part, offset, lemma), 0) + 1)


#: Morphology rules through which a spelling WordNet does not reach borrows its base's senses.
_DEFINED_THROUGH = frozenset({"plural_or_third_person", "past", "present_participle", "comparative", "superlative"})
#: Of those, the rules whose form may borrow the senses of a base WordNet knows in another part of speech,
#: a noun's or a verb's (DEEDED: the noun DEED; English makes verbs of nouns): not a comparative (CURER).
_ANY_PART = frozenset({"plural_or_third_person", "past", "present_participle"})
_NOUN_OR_VERB = ("noun", "verb")
#: WordNet's lexicographer files of plants and of foods (noun.plant, noun.food): a word for both means the
#: food first (VANILLA the flavouring, POPCORN the snack: not the orchid, the maize plant).
_PLANTS, _FOODS = 20, 13
#: The rules that make a verb form (its definition leads with the verb's senses, issue 36).
_VERB_FORMS = frozenset({"past", "present_participle"})



def _third_person(verb: str) -> str:
    """GUIDE -> guides, FIX -> fixes, CARRY -> carries: for a built definition's wording."""
    if verb.endswith(("s", "x", "z", "ch", "sh", "o")):
        return verb + "es"
    if verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


#: Definitions built from the rule table for a word WordNet does not reach, by the rule that derives it
#: from a word (issue 19): part of speech and wording. The base is written in capitals (a game's words).
_BUILT: dict[str, tuple[str, str]] = {
    "agent": ("noun", "one who {third} (from {BASE})"),
    "re": ("verb", "{base} again (RE- + {BASE})"),
    "out": ("verb", "surpass in {base} (OUT- + {BASE})"),
    "over": ("verb", "{base} too much (OVER- + {BASE})"),
    "adverb": ("adverb", "in a {base} manner (from {BASE})"),
    "like": ("adjective", "like a {base} (from {BASE})"),
    "ful": ("noun", "as much as a {base} holds (from {BASE})"),
    "less": ("adjective", "without a {base} (from {BASE})"),
    "ness": ("noun", "the state of being {base} (from {BASE})"),
    "y_adjective": ("adjective", "like or full of {base} (from {BASE})"),
    "comparative": ("adjective", "more {base} (from {BASE})"),
    "superlative": ("adjective", "most {base} (from {BASE})"),
}


def _participle(word: str, wordnet: WordNet) -> bool:
    """Whether ``word`` reads as a verb's past participle: -ed/-en of a verb, or an irregular one WordNet's
    exception list gives (MET, WORN, MEANT)."""
    regular = word.endswith(("ed", "en")) and bool(wordnet.bases(word, ("verb",)))
    return regular or any(part == "verb" for part, _lemma in wordnet.exceptions.get(word, ()))


#: A built definition's base must be of these parts where the rule table allows more: "like or full of"
#: reads a noun (CLUMPY), not a verb (MOPEY is no "full of mope").
_BUILT_NEEDS: dict[str, tuple[str, ...]] = {"y_adjective": ("noun",)}


def built_definition(key: str, known: set[str], wordnet: WordNet) -> tuple[str, str] | None:
    """(part of speech, text) the rule table says ``key`` means when WordNet has nothing for it:
    GUIDERS is 'one who guides', REBID 'bid again', DANKLY 'in a dank manner'. Its base must be a
    known spelling; a plural or verb form reaches its base's built definition (GUIDERS: GUIDER)."""
    for derivation in morphology.derivations(key):
        base = derivation.base
        if base not in known or base == key:
            continue
        parts = {part for part, _lemma in wordnet.bases(base)}
        if derivation.rule in _BUILT and parts & set(_BUILT_NEEDS.get(derivation.rule, derivation.needs)) and (
                len(base) >= 3):  # not HEY "full of he", THY "full of th"
            part, text = _BUILT[derivation.rule]
            if derivation.rule == "un":
                continue
            text = text.replace("a {base}", "an {base}") if base[0] in "aeiou" else text  # AN ACID MANNER
            return part, text.format(base=base, BASE=base.upper(), third=_third_person(base))
        if derivation.rule == "un" and parts & set(derivation.needs):
            if "adjective" in parts or _participle(base, wordnet):  # UNMET: not met, not "undo: met"
                return "adjective", f"not {base} (UN- + {base.upper()})"
            return "verb", f"undo: {base} in reverse (UN- + {base.upper()})"
        if derivation.rule in ("plural_or_third_person", "past", "present_participle") and not wordnet.bases(base):
            found = built_definition(base, known, wordnet)
            if found is not None:
                return found
    return None


def own_definitions(key: str, glosses: Glosses | None) -> list[tuple[str, str, int]]:
    """The project's own glosses of ``key``, else of the base a plural, verb form or comparative is read as
    (HOODIES: HOODIE, before the rule table's "like or full of hood"), as (part, gloss, OWN_FLAG)."""
    senses = glosses.senses if glosses is not None else {}
    bases = [d.base for d in morphology.derivations(key) if d.rule in _DEFINED_THROUGH and d.base != key]
    for word in (key, *bases):
        if word in senses:
            return [(part, text, OWN_FLAG) for part, text in senses[word]]
    return []


def own_verb_senses(key: str, wordnet: WordNet, glosses: Glosses | None) -> list[tuple[str, str, int]]:
    """The project's own verb glosses of the base of a verb form whose base WordNet knows in no verb sense
    (GUESTED, DOLED, DOMING: WordNet has GUEST, DOLE and DOME only as nouns), as (part, gloss, OWN_FLAG):
    a verb form leads with the verb (issue 36)."""
    senses = glosses.senses if glosses is not None else {}
    for derivation in morphology.derivations(key):
        base = derivation.base
        if derivation.rule in _VERB_FORMS and base in senses and (base, "verb") not in wordnet.senses:
            found = [(part, text, OWN_FLAG) for part, text in senses[base] if part == "verb"]
            if found:
                return found
    return []


def build_definitions(wordnet: WordNet, keys: list[str], out: Path, words: list[str] | None = None,
                      glosses: Glosses | None = None) -> dict[str, Any]:
    """Write DEFINITIONS_TRIE and DEFINITIONS_TEXT for ``keys``, WordNet's a-z lemmas and irregular forms.

    A word (``words``: the keys with a word sense) WordNet has nothing for but names gets the project's own
    glosses (``own_definitions``), else the definition the rule table builds from another word
    (``built_definition``), else WordNet's names. A form or variant line of the
    glosses shows its base's definitions. BuildError names a form or variant whose base nothing defines."""
    words = keys if words is None else words
    every = sorted(set(keys) | {lemma for lemma, _part in wordnet.senses if KEY_RE.fullmatch(lemma)}
                   | set(wordnet.exceptions))
    known = set(words)
    gloss_ids: dict[tuple[str, int], int] = {}
    built: dict[tuple[str, int], tuple[str, int]] = {}  # (part, -n) -> (text, source flag): not WordNet's
    refs: dict[tuple[str, str, int], tuple[str, int]] = {}  # (part, text, flag) -> its (part, -n)

    def ref_of(part: str, text: str, flag: int) -> tuple[str, int]:
        if (part, text, flag) not in refs:
            refs[(part, text, flag)] = (part, -1 - len(refs))
            built[refs[(part, text, flag)]] = (text, flag)
        return refs[(part, text, flag)]

    chosen_of: dict[str, list[tuple[str, int]]] = {}
    guessed: set[str] = set()  # keys whose definition is the rule table's
    for key in every:
        if key not in known:
            chosen = definition_ids(wordnet, key)  # a name's own senses (London)
        else:  # a word: not a name's senses while another source defines it (WHO: the pronoun)
            chosen = definition_ids(wordnet, key, names=False)
            if chosen:  # GUESTED: the verb GUEST (the project's gloss) before the noun WordNet has
                chosen = [ref_of(*made) for made in own_verb_senses(key, wordnet, glosses)] + chosen
            if not chosen:
                chosen = [ref_of(*made) for made in own_definitions(key, glosses)]
            if not chosen and not definition_ids(wordnet, key):
                made = built_definition(key, known, wordnet)
                chosen = [ref_of(*made, 0)] if made is not None else []
                if chosen:
                    guessed.add(key)  # a form or variant line of the glosses says better
            if not chosen:
                chosen = definition_ids(wordnet, key)  # nothing else: the names' (BAPTIST, COGNAC, WIFI)
            if not chosen:
                chosen = definition_ids(wordnet, key, any_part=True)  # VISUALS: the adjective VISUAL
        if chosen:
            chosen_of[key] = chosen
    links = glosses.links if glosses is not None else {}
    undefined: list[str] = []
    for key, (kind, base) in sorted(links.items()):
        if key in known and (key not in chosen_of or key in guessed):
            seen = [key]
            while base not in chosen_of and base in links and base not in seen:
                seen.append(base)  # SHLEPPS: a form of SHLEPP, a variant of SCHLEP
                base = links[base][1]
            if base not in chosen_of and glosses is not None and base in glosses.senses:
                chosen_of[key] = [ref_of(part, text, OWN_FLAG) for part, text in glosses.senses[base]]
                continue  # BURBS: BURB, a spelling the word list does not hold, glossed for its forms
            if base not in chosen_of:
                undefined.append(f"{key} is a {kind} of {links[key][1]}")
                continue
            chosen_of[key] = chosen_of[base]  # ADMINS: ADMIN's definitions, whatever their source
    if undefined:
        raise BuildError(f"own glosses: {'; '.join(undefined)}, which no source defines")
    items: list[tuple[str, bytes]] = []
    for key, chosen in sorted(chosen_of.items()):
        payload = bytearray()
        for ref in chosen:
            if ref not in gloss_ids:
                gloss_ids[ref] = len(gloss_ids)
            payload += gloss_ids[ref].to_bytes(DEFINITION_ID_BYTES, "little")
        items.append((key, bytes(payload)))
    if len(gloss_ids) >= 1 << (8 * DEFINITION_ID_BYTES):
        raise BuildError(f"{len(gloss_ids)} glosses do not fit {DEFINITION_ID_BYTES}-byte ids")
    marisa_trie.BytesTrie(items).save(str(out / DEFINITIONS_TRIE))
    records = [bytes([PARTS_OF_SPEECH.index(part) | (built[(part, offset)][1] if offset < 0 else 0)])
               + (built[(part, offset)][0] if offset < 0 else wordnet.glosses[(part, offset)]).encode("utf-8")
               for (part, offset), _id in sorted(gloss_ids.items(), key=lambda kv: kv[1])]
    own = sum(1 for _text, f in built.values() if f == OWN_FLAG)
    offsets, position = [], 0
    for record in records:
        offsets.append(position)
        position += len(record)
    offsets.append(position)
    text = (DEFINITIONS_MAGIC + struct.pack("<I", len(records)) + struct.pack(f"<{len(offsets)}I", *offsets)
            + b"".join(records))
    (out / DEFINITIONS_TEXT).write_bytes(text)
    digests = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in DEFINITION_FILES}
    return {
        "source": "WordNet 3.0 (Princeton University), Debian package wordnet-base"
                  + (f"; own glosses (tools/glosses.tsv) for {own} glosses of words WordNet lacks" if own else ""),
        "entries": len(items),
        "glosses": len(records),
        "per_part_of_speech": DEFINITIONS_PER_PART,
        "files": {name: {"bytes": (out / name).stat().st_size, "sha256": digests[name]} for name in DEFINITION_FILES},
        "checksum": hashlib.sha256("".join(f"{n}:{digests[n]}\n" for n in DEFINITION_FILES).encode()).hexdigest(),
    }
