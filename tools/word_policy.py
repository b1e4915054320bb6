"""The word policy: SCOWL's levels moved by how often people write a spelling today and by what WordNet
knows, then the overlay (LEXICON.md explains each rule and number).

Over 500 lines: the rules are one policy applied in one order (promotion before the forms that a promoted
word vouches for, the reason rules last), and each rule's docstring carries the judged cases it answers."""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dictionaries import (
    DEFAULT_LEVEL,
    LEVELS,
    PHRASE_PIECE,
    SENSES,
    morphology,
)
from tools.forms_judged import FormsJudged
from tools.frequencies import Frequencies
from tools.scowl import BRITISH_VARIANTS, RARE_SPELLINGS, classify, read_overlay, scowl_files
from tools.wordnet import WordNet

#: Zipf frequency (log10 of uses per billion words) from which a spelling is "written often today".
COMMON_ZIPF = 3.0
#: A spelling above the default level written this often is promoted (rule 2): a word WordNet knows in
#: lower case whatever other languages write, another only when it is not written more elsewhere.
PROMOTE_ZIPF = 2.5
WORDNET_ZIPF = 2.0
#: Below this Zipf frequency a default-level word is rare enough to need WordNet's word that it exists.
RARE_ZIPF = 2.0
#: A spelling this much more frequent in French, Spanish, German, Italian or Portuguese is a foreign
#: word in English text (NOIR, VIVO): its English frequency does not promote it.
FOREIGN_MARGIN = 0.5
#: Levels the frequency signal may lift to the default (size 95 is SCOWL's bin of doubtful forms).
PROMOTABLE_LEVELS: tuple[int, ...] = (70, 80)
#: SCOWL's size of doubtful entries, where a spelling people write but WordNet does not know is left out (rule 4).
DOUBTFUL_LEVEL = 95
#: A size-80 spelling WordNet does not know that people write in English (Zipf >= RARE_ZIPF) but this
#: much more in one of FOREIGN_LANGUAGES is a foreign word SCOWL filed as English (AVENIR, PROJET): left
#: out (rule 7). Size 70 is left alone: there such spellings are mostly loanwords English dictionaries
#: list (OLIO, CHEZ, DELE); so are the rarer ones at 80 (SEMBLE, VOLTI, DURE).
FOREIGN_WORD_MARGIN = 2.5
FOREIGN_WORD_LEVEL = 80

_CODE = {size: i + 1 for i, size in enumerate(LEVELS)}
DEFAULT_CODE = _CODE[DEFAULT_LEVEL]
DEMOTED_CODE = DEFAULT_CODE + 1  # the next size: still a word, just not at the default level
#: What a contraction's apostrophe stands for (I've, G'day), as against a name's (Qur'an, L'Aquila).
_CONTRACTED_RE = re.compile(r"'(?:ve|m|d|ll|re|s|t|day)$|n't$")
_ROMAN_RE = re.compile(r"m*(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})")
#: What rule 9 (``_follow_bases``) says of a spelling it reads: (base, rule, "moved" | "judged" | "refused").
Reading = tuple[str, str, str]


def collect(scowl: Path, overlay_path: Path, frequencies: Frequencies | None = None,
            wordnet: WordNet | None = None, judged: FormsJudged | None = None,
            readings: dict[str, Reading] | None = None,
            ) -> tuple[dict[str, list[int]], dict[tuple[str, str], tuple[int, str]], dict[str, Any]]:
    """Merge the lists, apply the policy, then the overlay.

    Returns key -> level code per sense (0 = absent), the first form per (key, sense), and facts for
    the metadata. Without ``frequencies`` and ``wordnet`` the levels are SCOWL's alone. ``judged`` is the
    project's judgments of forms (``tools/forms_judged.tsv``) rule 9 obeys; ``readings``, when given, is
    filled as ``_follow_bases`` says.
    """
    levels: dict[str, list[int]] = defaultdict(lambda: [0] * len(SENSES))
    forms: dict[tuple[str, str], tuple[int, str]] = {}
    files = scowl_files(scowl)
    raw_counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rare: set[str] = set()
    word_index = SENSES.index("word")
    for spelling, category, size, path in files:
        # British variants at the default size or below are words of their size (GAOL, FOETUS): British
        # English is English. The other rare lists still enter at size 95.
        is_rare = spelling in RARE_SPELLINGS and not (spelling in BRITISH_VARIANTS and size <= DEFAULT_LEVEL)
        code = len(LEVELS) if is_rare else _CODE[size]
        for raw in path.read_text(encoding="utf-8").splitlines():
            entry = classify(raw, category)
            if entry is None:
                continue
            if is_rare:
                if entry.sense != "word" or levels[entry.key][word_index]:
                    continue  # a rare spelling only adds words SCOWL's own spellings lack
                rare.add(entry.key)
                raw_counts["rare-spelling words"][str(size)] += 1
            else:
                raw_counts[category][str(size)] += 1
            index = SENSES.index(entry.sense)
            slot = levels[entry.key]
            if slot[index] == 0 or code < slot[index]:
                slot[index] = code
            previous = forms.get((entry.key, entry.sense))
            if previous is None or (code, entry.form) < previous:
                forms[(entry.key, entry.sense)] = (code, entry.form)
    rare = {key for key in rare if levels[key][word_index] == len(LEVELS)}
    changes: dict[str, list[str]] = {}
    overlay = read_overlay(overlay_path)
    if frequencies is not None and wordnet is not None:
        for key, senses in overlay.items():
            # The overlay's default-level words vouch for their forms as any legal word does (MONTES:
            # MONTE); the overlay itself is applied after the policy, below.
            if key in levels and any(sense == "word" and level <= DEFAULT_LEVEL for sense, level, _why in senses):
                levels[key][word_index] = min(levels[key][word_index] or DEFAULT_CODE, DEFAULT_CODE)
        changes = apply_policy(levels, forms, rare, frequencies, wordnet, judged, readings)
    for key, senses in sorted(overlay.items()):
        # An overlay entry says what the spelling is: it replaces every sense SCOWL gave it.
        for sense in (*SENSES, PHRASE_PIECE):
            forms.pop((key, sense), None)
        if any(sense == "unknown" for sense, _level, _why in senses):
            levels.pop(key, None)
            continue
        slot = [0] * len(SENSES)
        for sense, level, why in senses:
            if sense == PHRASE_PIECE:
                slot[SENSES.index("word")] = _CODE[level]
                forms[(key, PHRASE_PIECE)] = (_CODE[level], _phrase(key, why))
            else:
                slot[SENSES.index(sense)] = _CODE[level]
                forms[(key, sense)] = (_CODE[level], key.upper() if sense == "acronym"
                                       else _contracted(key, why) if sense == "contraction" else key)
        levels[key] = slot
    info = {
        "scowl_files": len(files),
        "scowl_entries_kept": {cat: dict(sorted(sizes.items(), key=lambda kv: int(kv[0]))) for cat, sizes in sorted(raw_counts.items())},
        "overlay_entries": sum(len(v) for v in overlay.values()),
        "policy_changes": {rule: len(keys) for rule, keys in changes.items()},
        "_changes": changes,
    }
    return dict(levels), forms, info


def _contracted(key: str, why: str) -> str:
    """A contraction as the overlay comment writes it with its apostrophe (HES: he's), else the key."""
    written: str
    for written in re.findall(r"[A-Za-z]+'[A-Za-z]+", why):
        if written.replace("'", "").lower() == key:
            return written
    return key


def _phrase(key: str, why: str) -> str:
    """The phrase a piece belongs to: the overlay comment's first quoted phrase holding it ("status quo")."""
    phrase: str
    for phrase in re.findall(r'"([^"]+)"', why):
        if key in re.split(r"[^a-z]+", phrase.lower()):
            return phrase
    return ""


def _leave_out(levels: dict[str, list[int]], forms: dict[tuple[str, str], tuple[int, str]], wordnet: WordNet,
               key: str) -> bool:
    """Take a spelling out of the dictionary (rules 4, 7 and 8), unless it is a piece of a lower-case
    WordNet collocation (HABEAS in habeas corpus, DEJA in deja vu): that stays a size-95 word whose
    verdict says it is only part of that phrase. True when it was left out."""
    for sense in (*SENSES, PHRASE_PIECE):
        forms.pop((key, sense), None)
    phrase = wordnet.phrases.get(key)
    if phrase is None or key in wordnet.common:
        del levels[key]
        return True
    code = _CODE[DOUBTFUL_LEVEL]
    levels[key] = [code] + [0] * (len(SENSES) - 1)
    forms[(key, PHRASE_PIECE)] = (code, phrase)
    return False


def _written_in_lower_case(forms: dict[tuple[str, str], tuple[int, str]], key: str, sense: str) -> bool:
    found = forms.get((key, sense))
    return found is not None and found[1] == key


def apply_policy(levels: dict[str, list[int]], forms: dict[tuple[str, str], tuple[int, str]], rare: set[str],
                 frequencies: Frequencies, wordnet: WordNet, judged: FormsJudged | None = None,
                 readings: dict[str, Reading] | None = None) -> dict[str, list[str]]:
    """Move words across the default level by how often people write them; return the keys per rule.

    Promotion (2) runs first, so a promoted plural can vouch for its clipping (ADMINS for ADMIN).

    1. clipped: a lower-case SCOWL abbreviation of 3+ letters without a period (APP, MATHS) that
       people write often (Zipf >= COMMON_ZIPF), whose plural (APPS) or singular (MATH) is a
       default-level word people write (Zipf >= RARE_ZIPF), is a clipped word: a word at the default level.
    2. promoted: a word SCOWL ranks at 70 or 80, or a word only a rare spelling list holds (DONUT),
       with no other sense (a name's frequency is not the word's: YORK), written often
       (Zipf >= COMMON_ZIPF) and not a foreign word, becomes a default-level word.
    3. demoted: a default-level word written less than RARE_ZIPF that WordNet does not know in lower
       case, as a lemma, a plural or verb form of one, or a comparative people write of a common
       adjective, moves to the next size (SOBERER, DARER).
    4. left_out: a spelling SCOWL holds only as a size-95 word (its bin of doubtful entries), that
       WordNet does not know in any form, yet that people write (Zipf >= RARE_ZIPF), is mostly a name,
       abbreviation, foreign word or misspelling SCOWL wrote in lower case (ABID, BHD, OCCURENCE), not
       a rare English word: the build leaves it out, so a table reads "not in the dictionary".

    Rules 5 to 7 only say better why a spelling is refused: each applies to spellings refused at the
    default level whatever it decides, and none makes a spelling legal or illegal there.

    5. capitalised_word: a spelling SCOWL capitalises above the default level (Maglev, as a proper
       noun at or below the size of its lower-case word, or with no word at all) that WordNet writes
       only in lower case, as a common noun, is that common word capitalised, not a name: its proper
       noun sense becomes a word at the same size (MAGLEV is "uncommon", not "proper_noun").
    6. named: a lower-case SCOWL word above the default level that WordNet writes only with capitals,
       in every form (SIGINT, Tirana), is an acronym (two capitals or more) or a name at the same size.
    7. foreign: a size-80 word WordNet does not know in any form, that people write in English
       (Zipf >= RARE_ZIPF) but FOREIGN_WORD_MARGIN more in French, Spanish, German, Italian or
       Portuguese (AVENIR, PROJET), is a foreign word SCOWL filed as English: the build leaves it out,
       so a table reads "not in the dictionary".
    8. foreign_name (issue 19): a spelling SCOWL lists only as a size-95 name, that WordNet does not
       know, written in English (Zipf >= RARE_ZIPF) but FOREIGN_WORD_MARGIN more in another language
       (UNE, PERO, DESDE), is a foreign word SCOWL capitalised: left out like rule 7's.
       Issue 19 widened it: a name above the default whose lower-case twin, a word above the default, is
       written that much more elsewhere (SUR, ELLE, SIND), and a spelling the surname rule would take that
       is (GROS, MERCI, DANS), are foreign words too.
    phrase_piece (issue 19): a spelling rules 4, 7 or 8 would leave out that is a piece of a lower-case
    WordNet collocation (HABEAS, DEJA, FACTO) stays a size-95 word whose verdict names the phrase.
    name_twin (issue 19): a name's lower-case twin, a word above the default at or above the name's size,
    that WordNet writes in lower case (LEGER, BEN, BERLIN, FITCH), loses the name: its reason is the rare
    word ("uncommon"). abbreviation_name: an abbreviation SCOWL writes in lower case that ties with a name
    of the same spelling (const and Const) loses the name: its reason is the abbreviation.
    judged_forms (issue 36): a form the project's judgments accept that rule 9's guards refused (``_follow_bases``);
    rule 4 leaves an accepted spelling in, for rule 9 to read.
    """
    word = SENSES.index("word")
    others = range(1, len(SENSES))
    promotable = {_CODE[size] for size in PROMOTABLE_LEVELS}
    changes: dict[str, list[str]] = {"clipped": [], "promoted": [], "forms": [], "kept": [], "demoted": [], "left_out": [],
                                     "capitalised_word": [], "contraction": [], "name_twin": [], "abbreviation_name": [],
                                     "surname": [], "named": [], "numeral": [],
                                     "foreign": [], "foreign_name": [], "phrase_piece": [], "calendar_abbreviation": [],
                                     "follows_base": [], "judged_forms": []}

    def known_as_word(key: str) -> bool:
        """WordNet knows the spelling in lower case: itself, a plural or verb form, or a used comparative."""
        if key in wordnet.common:
            return True
        if any(lemma in wordnet.common for _pos, lemma in wordnet.bases(key, ("noun", "verb"))):
            return True
        return frequencies.zipf(key) > 0 and any(
            lemma != key and lemma in wordnet.common and frequencies.zipf(lemma) >= COMMON_ZIPF + 0.5
            for _pos, lemma in wordnet.bases(key, ("adjective",)))

    def written_word(key: str) -> bool:
        code = levels[key][word] if key in levels else 0
        return 0 < code <= DEFAULT_CODE and frequencies.zipf(key) >= RARE_ZIPF

    irregular = {(lemma, part) for form, pairs in wordnet.exceptions.items() for part, lemma in pairs
                 if not any(d.base == lemma for d in morphology.derivations(form))}

    def parts(base: str) -> set[str]:
        return {part for part, _lemma in wordnet.bases(base)}

    def is_irregular(base: str, part: str) -> bool:
        return (base, part) in irregular

    def at_default(base: str) -> bool:
        return base in levels and 0 < levels[base][word] <= DEFAULT_CODE

    proper = SENSES.index("proper_noun")
    for key in sorted(levels):  # promotion first: a promoted plural (ADMINS) vouches for its clipping
        slot = levels[key]
        code = slot[word]
        if code <= DEFAULT_CODE:
            continue
        zipf = frequencies.zipf(key)
        lemma = key in wordnet.common and not _ROMAN_RE.fullmatch(key)
        if any(slot[i] for i in others):
            if key in wordnet.units and not any(slot[i] for i in others if i != proper) and zipf >= RARE_ZIPF:
                # A unit named after a person (TESLA, GAUSS) is a word whatever name SCOWL also lists.
                slot[word], slot[proper] = DEFAULT_CODE, 0
                forms.pop((key, "proper_noun"), None)
                changes["promoted"].append(key)
            elif code and code < min(slot[i] for i in others if slot[i]) and zipf >= WORDNET_ZIPF and (
                    lemma or (any(lem in wordnet.common for _p, lem in wordnet.bases(key))
                              and morphology.form_of(key, at_default, parts, is_irregular) is not None)):
                # A word SCOWL ranks as more common than its name that WordNet knows (MOJO, DECO), or a
                # regular form of such a word that WordNet reaches (ORCAS: ORCA; Orcas Island is rarer).
                slot[word] = DEFAULT_CODE
                changes["promoted"].append(key)
            continue
        if ((lemma and zipf >= WORDNET_ZIPF)
                or (zipf >= RARE_ZIPF and (lemma or any(lem in wordnet.common for _p, lem in wordnet.bases(key)))
                    and morphology.form_of(key, at_default, parts, is_irregular) is not None)
                or ((code in promotable or key in rare) and zipf >= PROMOTE_ZIPF
                    and frequencies.foreign_zipf(key) <= zipf + FOREIGN_MARGIN)):
            slot[word] = DEFAULT_CODE
            changes["promoted"].append(key)
    doubtful = _CODE[DOUBTFUL_LEVEL]
    unvouched: set[str] = set()
    for key in sorted(levels):
        slot = levels[key]
        code = slot[word]
        if (code == doubtful and not any(slot[i] for i in others) and frequencies.zipf(key) >= RARE_ZIPF
                and not wordnet.bases(key) and not (judged and judged.verdicts.get(key) == "accept")):
            changes["left_out" if _leave_out(levels, forms, wordnet, key) else "phrase_piece"].append(key)
            continue
        if (slot[SENSES.index("abbreviation")] and not 0 < code <= DEFAULT_CODE and len(key) >= 3
                and _written_in_lower_case(forms, key, "abbreviation") and frequencies.zipf(key) >= COMMON_ZIPF
                and (len(key) > 4 and written_word(key[:-1]) if key.endswith("s") else written_word(key + "s"))):
            slot[word] = DEFAULT_CODE
            changes["clipped"].append(key)
        elif 0 < code <= DEFAULT_CODE and frequencies.zipf(key) < RARE_ZIPF and not known_as_word(key):
            unvouched.add(key)

    def legal(base: str) -> bool:
        return at_default(base) and base not in unvouched

    settled = True
    while settled:  # a form vouched for can vouch in turn (REPAVED: PAVED, a form of PAVE)
        settled = False
        for key in sorted(unvouched):
            if morphology.form_of(key, legal, parts, is_irregular) is not None:
                unvouched.discard(key)
                changes["forms"].append(key)
                settled = True
    changes["forms"].sort()
    for key in sorted(unvouched):
        if morphology.nonce_form(key, legal, parts, is_irregular) is not None:
            levels[key][word] = DEMOTED_CODE
            changes["demoted"].append(key)
        else:
            changes["kept"].append(key)
    _follow_bases(levels, legal, wordnet, is_irregular, frequencies, changes, judged, readings)
    _apply_reason_rules(levels, forms, frequencies, wordnet, changes)
    return changes


def _follow_bases(levels: dict[str, list[int]], legal: Callable[[str], bool], wordnet: WordNet,
                  is_irregular: Callable[[str, str], bool], frequencies: Frequencies,
                  changes: dict[str, list[str]], judged: FormsJudged | None = None,
                  readings: dict[str, Reading] | None = None) -> None:
    """Rule 9 (issue 36), forms follow their base above the default level: a word SCOWL lists at size 70 or 80
    that the rule table reads as a regular form of a legal base (``morphology.REGULAR_FORMS``: BIRRS, BIRRED,
    YARNING, REDOS, LAVAGES, MODALLY, HELMING) becomes a word at the default level, whatever its frequency.

    The rule table's guards hold (no BLOWED, LOYALER, STOPED), and the base must be a lemma WordNet writes in
    lower case in the part of speech the form needs (a noun or verb for -s, a verb for -ed, -ing and agent -er,
    an adjective for -er/-est and -ly), so that a plural of a name or an adjective (MARSES, LEASTS) or an -ing
    of a past tense (HIDDER: HID) is no form. Two kinds of base stand in for a lemma: an agent noun the rule
    made legal takes a plural (INKERS: INKER, of INK); a noun of attributes whose -ed and -ing SCOWL lists is a
    verb (``_verbed_nouns``: GLITZED, SHEENED, LUSTRED). Another noun WordNet knows only as a noun takes no -ed or
    -ing, even where people write both (tried and dropped: CELLING, AISLING came with SHOTTED and QUILLED). A classical plural does not
    bar the English one (FOSSAS beside FOSSAE, AREOLAS), as a native irregular does (WIFES, TOOTHS).

    An adjective that is also an adverb takes no -ly (FASTLY, LONGLY), a superlative no plural (LATESTS), an
    adjective no -er unless SCOWL lists its -est too (DUER), a mass noun no plural (HELIUMS, DEAFNESSES:
    an abstract ending after a stem with a vowel, not CHRISM; or only WordNet senses of attributes, states and
    substances), a gerund that names no thing no plural nobody writes (COOKINGS, SPEEDINGS, ITCHINGS; not
    KNITTINGS, a thing), nor does a mass noun people write often whose plural nobody writes (``_mass_plural``),
    nor an adverb of time (THENS, MEANWHILES: ``_time_adverb``), nor a noun that names no thing whose plural SCOWL doubts, listing it at 80 and its singular at 40 or below
    (``_doubted_plural``: HYSTERIAS, CALLIGRAPHIES, ENOUGHS), and a word with at least as many noun or verb
    senses in WordNet as adjective ones no -er, -est or -ly
    (MURKER, HAZELLY). Size 95, SCOWL's bin of doubtful entries, is left as it is: judged, its forms are mostly
    nonce or misspelt (MUGGERED, GYBER, HEXS, CANOING). A form made legal vouches for its own forms in turn
    (REDOS: REDO).

    The project's judgments (``judged``, ``tools/forms_judged.tsv``) have the last word where the sources cannot
    tell: a spelling judged ``refuse`` is never moved; one judged ``accept`` that the rule table itself reads as a
    regular form of a legal base (``morphology.form_of`` with its own guards: no BLOWED, LOYALER, STOPED) and that
    SCOWL lists at 70, 80 or 95 is moved whatever rule 9's guards say (``changes["judged_forms"]``).
    ``readings``, when given, gets key -> (base, rule, what) for every spelling moved (``"moved"``, ``"judged"``)
    and every one still above the default level, or left out by rule 4, that the rule table reads so
    (``"refused"``): what an ``accept`` would move (``tools/form_candidates.py`` lists them to judge)."""
    word = SENSES.index("word")
    promotable = {_CODE[size] for size in PROMOTABLE_LEVELS}
    classical = _classical_plurals(wordnet)
    agents: set[str] = set()  # agent nouns WordNet lacks (INKER, SEXER): nouns that take a plural
    others: set[str] = set()
    verbed = _verbed_nouns(levels, wordnet)

    def lemma_parts(base: str) -> set[str]:
        if base in wordnet.common:
            known = {part for part in ("noun", "verb", "adjective", "adverb") if (base, part) in wordnet.senses}
            return known | {"verb"} if base in verbed else known
        if base not in agents and base not in others and legal(base):
            # SEXER, a legal agent noun of a verb WordNet lacks, is a noun
            (agents if morphology.form_of(base, legal, lemma_parts, irregular, _AGENT) else others).add(base)
        return {"noun"} if base in agents else set()

    def irregular(base: str, part: str) -> bool:
        return is_irregular(base, part) and not (part == "noun" and base in classical)

    def listed(key: str) -> bool:
        return key in levels and levels[key][word] > 0

    def form(key: str, rules: frozenset[str] = morphology.REGULAR_FORMS) -> morphology.Derivation | None:
        """The derivation that reads ``key`` as a form of a legal base, or None."""
        found = morphology.form_of(key, legal, lemma_parts, irregular, rules)
        if found is None:
            return None
        known = lemma_parts(found.base)
        base = found.base
        if not known & set(_FORM_NEEDS[found.rule]):
            return None
        if found.rule == "plural_or_third_person" and "verb" not in known and (
                (base.endswith("est") and "adjective" in known)  # LATESTS, LEASTS: "the latest" takes no plural
                or _abstract(base)
                or (base not in agents and all(wordnet.lexfiles.get(("noun", o)) in _MASS_KINDS
                                               for o in wordnet.senses[(base, "noun")]))
                or (base.endswith("ing") and frequencies.zipf(key) == 0 and base not in agents
                    and all(wordnet.lexfiles.get(("noun", o)) in _ABSTRACT_KINDS for o in wordnet.senses[(base, "noun")]))
                or _mass_plural(key, base, wordnet, frequencies)
                or _time_adverb(base, wordnet)
                or (base not in agents and _doubted_plural(levels[key][word], levels[base][word], key, base, wordnet,
                                                           frequencies))):
            return None  # HELIUMS, DEAFNESSES, COOKINGS: a substance, quality, state or act is a mass noun
        if found.rule in ("comparative", "superlative") and not listed(
                key[:-2] + "est" if found.rule == "comparative" else key[:-3] + "er"):
            return form(key, rules - _GRADES)  # DUER: no DUEST, so DUE does not grade (PROFANER: an agent)
        if found.rule in ("comparative", "superlative", "adverb") and not base.endswith("y") and (
                len(wordnet.senses.get((base, "adjective"), ())) <= max(
                    len(wordnet.senses.get((base, "noun"), ())), len(wordnet.senses.get((base, "verb"), ())))):
            return None  # MURKER, CRANKLY, HAZELLY: as much a noun or verb as an adjective that grades
        return None if found.rule == "adverb" and "adverb" in known else found

    def table_reading(key: str) -> morphology.Derivation | None:
        """The rule table's own reading of ``key`` as a regular form of a legal base, without rule 9's guards."""
        return morphology.form_of(key, legal, lemma_parts, irregular, morphology.REGULAR_FORMS)

    judgments = judged.verdicts if judged is not None else {}
    above = {_CODE[size] for size in (*PROMOTABLE_LEVELS, DOUBTFUL_LEVEL)}
    moved: list[str] = []
    judged_moved: list[str] = []
    pending = sorted(key for key, slot in levels.items() if judgments.get(key) != "refuse" and (
        slot[word] in promotable or (slot[word] in above and judgments.get(key) == "accept")))
    while pending:
        later = []
        for key in pending:
            found = form(key) if levels[key][word] in promotable else None
            what = "moved"
            if found is None and judgments.get(key) == "accept":
                found, what = table_reading(key), "judged"
            if found is None:
                later.append(key)
                continue
            levels[key][word] = DEFAULT_CODE
            (moved if what == "moved" else judged_moved).append(key)
            if readings is not None:
                readings[key] = (found.base, found.rule, what)
            if found.rule == "agent":
                agents.add(key)
        if len(later) == len(pending):
            break
        pending = later
    changes["follows_base"] = sorted(moved)
    changes["judged_forms"] = sorted(judged_moved)
    if readings is not None:
        for key in sorted({key for key, slot in levels.items() if slot[word] in above} | set(changes["left_out"])):
            found = table_reading(key)
            if found is not None:
                readings[key] = (found.base, found.rule, "refused")


def _verbed_nouns(levels: dict[str, list[int]], wordnet: WordNet) -> set[str]:
    """Rule 9's nouns that are verbs too (issue 36): a word WordNet knows only as a noun, all of whose senses are
    attributes (noun.attribute: GLITZ, SHEEN, LUSTRE, BRUNT, GUISE), and whose -ed and -ing SCOWL both lists. A noun
    of quality or look is made a verb in English (glitz up, sheened, lustred, to bear the brunt), and both forms
    listed are SCOWL's word that it is one; its forms then follow it (GLITZED, GLITZES, SHEENED, LUSTRED). A form
    WordNet reads as another verb's is no evidence (SOOTHED is SOOTHE's, so SOOTH stays a noun: no SOOTHS).
    Tried on other kinds and dropped: states (DISEASING, RENOWNER), substances and phenomena (SHITING, SOUTHERING),
    and nouns of any kind, where both forms are as often listed for a noun that is no verb (SWORDED, BARNED)."""
    word = SENSES.index("word")
    paradigm: dict[str, set[str]] = defaultdict(set)
    for key, slot in levels.items():
        if slot[word] and key.endswith(("ed", "ing")) and not wordnet.bases(key, ("verb",)):
            for derivation in morphology.derivations(key):
                if derivation.rule in ("past", "present_participle"):
                    paradigm[derivation.base].add(derivation.rule)
    return {base for base, rules in paradigm.items()
            if len(rules) == 2 and base in wordnet.common and (base, "noun") in wordnet.senses
            and not any((base, part) in wordnet.senses for part in ("verb", "adjective", "adverb"))
            and all(wordnet.lexfiles.get(("noun", o)) in _VERBED_KINDS for o in wordnet.senses[(base, "noun")])}


def _time_adverb(base: str, wordnet: WordNet) -> bool:
    """Rule 9's guard (issue 36): ``base`` is an adverb whose noun senses are all times, "that time" (THEN,
    MEANWHILE, MEANTIME: by then, in the meanwhile): a noun only after a preposition, without a plural (THENS)."""
    return (base, "adverb") in wordnet.senses and all(
        wordnet.lexfiles.get(("noun", o)) == _TIME_KIND for o in wordnet.senses.get((base, "noun"), ()))


def _abstract(noun: str) -> bool:
    """A noun of quality or doctrine by its ending (DEAFNESS, ARABILITY, RACISM), not a stem without a vowel
    that only ends so (CHRISM, PRISM, CITY)."""
    for ending in _ABSTRACT_ENDINGS:
        if noun.endswith(ending) and any(c in "aeiouy" for c in noun[:-len(ending)]):
            return True
    return False


def _mass_plural(key: str, base: str, wordnet: WordNet, frequencies: Frequencies) -> bool:
    """Rule 9's guard (issue 36): ``key`` is the plural of a noun with one WordNet sense, an act, attribute, state,
    substance or process (INCEST, COOKING, ESPIONAGE), that people write often (Zipf >= COMMON_ZIPF) while
    nobody writes the plural (Zipf 0): a mass noun, whose plural a table refuses (INCESTS)."""
    if (base, "noun") not in wordnet.senses or any((base, part) in wordnet.senses for part in ("verb", "adjective", "adverb")):
        return False
    senses = wordnet.senses[(base, "noun")]
    return (len(senses) == 1 and wordnet.lexfiles.get(("noun", senses[0])) in _MASS_KINDS | _ACT_KINDS
            and frequencies.zipf(base) >= COMMON_ZIPF and frequencies.zipf(key) == 0)


def _doubted_plural(code: int, base_code: int, key: str, base: str, wordnet: WordNet, frequencies: Frequencies) -> bool:
    """Rule 9's guard (issue 36), SCOWL's own doubt: ``key`` (SCOWL code ``code``) is the plural of a noun SCOWL
    lists at size 40 or below (``base_code``) while it lists the plural only at 80, nobody writes the plural
    (Zipf 0), none of the noun's WordNet senses is a thing (each is an act, attribute, idea, message, event,
    feeling, process, state, substance, food or quantity: ``_UNCOUNTED_KINDS``), and it is no -TION, -SION or
    -MENT noun, whose senses are acts that happen one by one (RESUSCITATIONS). A common noun whose plural SCOWL
    lists only at 80, from word-game and crossword lists, is a noun used without a plural: HYSTERIAS,
    CALLIGRAPHIES, NIGHTLIFES, ENOUGHS."""
    senses = wordnet.senses.get((base, "noun"), ())
    return (code == _CODE[80] and 0 < base_code <= _CODE[40] and bool(senses) and frequencies.zipf(key) == 0
            and not base.endswith(_NOMINALISATIONS)
            and all(wordnet.lexfiles.get(("noun", o)) in _UNCOUNTED_KINDS for o in senses))


def _classical_plurals(wordnet: WordNet) -> set[str]:
    """Nouns whose irregular plurals in WordNet are all classical (FOSSA: FOSSAE, GYRUS: GYRI, TAXON: TAXA,
    INDEX: INDICES, GOY: GOYIM): English gives them a regular plural beside it (FOSSAS), unlike a native
    irregular one (WIFE: WIVES) or a Greek -is (AXIS: AXES, never AXISES)."""
    plurals: dict[str, list[str]] = defaultdict(list)
    for form, pairs in wordnet.exceptions.items():
        for part, lemma in pairs:
            if part == "noun" and form != lemma:
                plurals[lemma].append(form)
    return {lemma for lemma, forms in plurals.items() if all(_classical(lemma, form) for form in forms)}


def _classical(lemma: str, plural: str) -> bool:
    """A Latin, Greek or Hebrew plural: -a/-ae, -um/-on/-a, -us/-o/-i, -ex/-ix/-ices, -a/-ata, -im, -eau/-eaux."""
    return ((lemma.endswith("a") and plural == lemma + "e")
            or (lemma.endswith(("um", "on")) and plural == lemma[:-2] + "a")
            or (lemma.endswith("us") and plural == lemma[:-2] + "i")
            or (lemma.endswith("o") and plural == lemma[:-1] + "i")
            or (lemma.endswith(("ex", "ix")) and plural == lemma[:-2] + "ices")
            or (lemma.endswith("a") and plural == lemma + "ta")
            or plural in (lemma + "im", lemma + "x"))


#: WordNet's lexicographer files of attributes, states and substances (noun.attribute, noun.state,
#: noun.substance): nouns all of whose senses are of these kinds are mass nouns, without a plural.
_MASS_KINDS = frozenset({7, 26, 27})
#: WordNet's lexicographer file of attributes (noun.attribute): a noun all of whose senses are of it, whose -ed and
#: -ing SCOWL lists, is a verb too (``_verbed_nouns``: GLITZ, SHEEN, LUSTRE).
_VERBED_KINDS = frozenset({7})
#: WordNet's lexicographer file of times (noun.time): an adverb whose noun senses are all of it takes no plural (THENS).
_TIME_KIND = 28
_AGENT = frozenset({"agent"})
_GRADES = frozenset({"comparative", "superlative"})
#: WordNet's lexicographer files of acts, events and processes (noun.act, noun.event, noun.process): a one-sense
#: noun of these kinds people write often and never in the plural is a mass noun (``_mass_plural``: INCEST).
_ACT_KINDS = frozenset({4, 11, 22})
#: WordNet's lexicographer files of nouns that name no thing: acts, attributes, cognition, communication, events,
#: feelings, motives, phenomena, processes, relations, shapes, states, substances. A gerund all of whose senses
#: are of these kinds takes no plural nobody writes (COOKINGS, ITCHINGS, QUICKENINGS).
_ABSTRACT_KINDS = frozenset({4, 7, 9, 10, 11, 12, 16, 19, 22, 24, 25, 26, 27})
#: The kinds ``_doubted_plural`` reads as uncounted: the abstract ones, foods and quantities (TREACLES, ENOUGHS).
_UNCOUNTED_KINDS = _ABSTRACT_KINDS | {13, 23}
#: Endings of nouns of an act done one at a time, which take a plural (RESUSCITATIONS, DETHRONEMENTS).
_NOMINALISATIONS = ("tion", "sion", "ment")
#: Endings of abstract nouns of quality or doctrine that take no plural (DEAFNESSES, ARABILITIES, -ISMS).
_ABSTRACT_ENDINGS = ("ness", "ity", "ism", "ence", "ancy", "ency")
#: The part of speech a base must be a WordNet lemma of, per regular form (rule 9).
_FORM_NEEDS: dict[str, tuple[str, ...]] = {
    "plural_or_third_person": ("noun", "verb"), "past": ("verb",), "present_participle": ("verb",),
    "agent": ("verb",), "comparative": ("adjective",), "superlative": ("adjective",), "adverb": ("adjective",)}


def _apply_reason_rules(levels: dict[str, list[int]], forms: dict[tuple[str, str], tuple[int, str]],
                        frequencies: Frequencies, wordnet: WordNet, changes: dict[str, list[str]]) -> None:
    """Rules 5 to 8 and issue 19's reason rules of ``apply_policy``: spellings refused at the default level
    either way."""
    word, proper, contraction = SENSES.index("word"), SENSES.index("proper_noun"), SENSES.index("contraction")
    abbreviation = SENSES.index("abbreviation")
    others = range(1, len(SENSES))
    for key in sorted(levels):
        slot = levels[key]
        code = slot[word]
        if key in CALENDAR_ABBREVIATIONS and slot[proper] and not DEFAULT_CODE >= code > 0:
            # APR, OCT, THURS: SCOWL lists them among names (OCT also as a rarer abbreviation, Oct.), but they
            # are a month's or a day's abbreviation, at the name's size (MAR, SAT, SUN, WED are words, and stay so).
            name = forms.pop((key, "proper_noun"), (slot[proper], key.capitalize()))
            forms.setdefault((key, "abbreviation"), name)
            slot[abbreviation] = min(slot[proper], slot[abbreviation] or slot[proper])
            slot[proper] = 0
            changes["calendar_abbreviation"].append(key)
        elif (slot[proper] > DEFAULT_CODE and (not code or code >= slot[proper])
                and key in wordnet.common_nouns and key not in wordnet.capitalised):
            slot[word] = slot[proper]
            slot[proper] = 0
            forms.pop((key, "proper_noun"), None)
            changes["capitalised_word"].append(key)
        elif (slot[contraction] and slot[proper] and forms.get((key, "proper_noun"), (0, ""))[1].lower()
              == forms.get((key, "contraction"), (0, ""))[1].lower()
              and _CONTRACTED_RE.search(forms[(key, "contraction")][1].lower())):
            # SCOWL's contraction list wins over the capitals of I've (IVE is a contraction).
            slot[proper] = 0
            forms.pop((key, "proper_noun"), None)
            changes["contraction"].append(key)
        elif code > DEFAULT_CODE and 0 < slot[proper] <= code and key in wordnet.common:
            # A name's lower-case twin that WordNet writes in lower case (LEGER, a ledger line; BERLIN, a carriage;
            # BEN, ANNA, FITCH): a real but rare word, so the verdict names the word, not the name.
            slot[proper] = 0
            forms.pop((key, "proper_noun"), None)
            changes["name_twin"].append(key)
        elif (code > DEFAULT_CODE and DEFAULT_CODE < slot[proper] <= code
              and not any(slot[i] for i in others if i != proper) and _foreign(frequencies, key)):
            # A name above the default level whose lower-case twin is a foreign word (SUR, ELLE, SIND): left
            # out like rule 8's words, so a table reads "not in the dictionary" rather than "a proper noun".
            changes["foreign_name" if _leave_out(levels, forms, wordnet, key) else "phrase_piece"].append(key)
        elif (slot[abbreviation] and slot[abbreviation] == slot[proper] and not DEFAULT_CODE >= code > 0
              and _written_in_lower_case(forms, key, "abbreviation")):
            # An abbreviation SCOWL writes in lower case and also, capitalised, among its names at the same
            # size (const and Const, agt and Agt): a tie the name used to win.
            slot[proper] = 0
            forms.pop((key, "proper_noun"), None)
            changes["abbreviation_name"].append(key)
        elif (code >= _CODE[80] and slot[proper] and not any(slot[i] for i in others if i != proper)
              and frequencies.zipf(key) >= PROMOTE_ZIPF and not wordnet.bases(key)):
            if _foreign(frequencies, key):
                # Written far more in another language (GROS, SUR, MERCI, DANS): a foreign word SCOWL lists in
                # lower case and as a name, left out like rule 8's (or a phrase's piece: SUI generis).
                changes["foreign_name" if _leave_out(levels, forms, wordnet, key) else "phrase_piece"].append(key)
                continue
            # A surname's text frequency (REDDY, TAIT): written often enough to be promoted were it a word,
            # but no dictionary (WordNet) holds it in lower case and SCOWL also lists the name.
            slot[proper] = min(slot[proper], code)
            slot[word] = 0
            changes["surname"].append(key)
        elif (slot[proper] == _CODE[DOUBTFUL_LEVEL] and not code and not any(slot[i] for i in others if i != proper)
              and frequencies.zipf(key) >= RARE_ZIPF and not wordnet.bases(key)
              and frequencies.foreign_zipf(key) >= frequencies.zipf(key) + FOREIGN_WORD_MARGIN):
            # A foreign word SCOWL lists only among its size-95 names (UNE, PERO, WENN, DESDE): like rule 7's
            # words it is left out, so a table reads "not in the dictionary" rather than "a proper noun".
            changes["foreign_name" if _leave_out(levels, forms, wordnet, key) else "phrase_piece"].append(key)
        elif code <= DEFAULT_CODE or any(slot[i] for i in others):
            continue
        elif (key in wordnet.capitalised and key not in wordnet.common
              and not any(lemma in wordnet.common for _pos, lemma in wordnet.bases(key))):
            written = wordnet.capitalised[key]
            sense = "acronym" if sum(c.isupper() for c in written) > 1 else "proper_noun"
            slot[SENSES.index(sense)] = code
            slot[word] = 0
            forms[(key, sense)] = (code, written)
            changes["named"].append(key)
        elif len(key) >= 3 and _ROMAN_RE.fullmatch(key):
            # A Roman numeral SCOWL files as a rare word (XIII, XVIII): not a word at all.
            del levels[key]
            for sense in SENSES:
                forms.pop((key, sense), None)
            changes["numeral"].append(key)
        elif (code == _CODE[FOREIGN_WORD_LEVEL] and frequencies.zipf(key) >= RARE_ZIPF and not wordnet.bases(key)
              and frequencies.foreign_zipf(key) >= frequencies.zipf(key) + FOREIGN_WORD_MARGIN):
            changes["foreign" if _leave_out(levels, forms, wordnet, key) else "phrase_piece"].append(key)


def _foreign(frequencies: Frequencies, key: str) -> bool:
    """Written in English (Zipf >= RARE_ZIPF) but FOREIGN_WORD_MARGIN more in another language (GROS, SUR)."""
    zipf = frequencies.zipf(key)
    return zipf >= RARE_ZIPF and frequencies.foreign_zipf(key) >= zipf + FOREIGN_WORD_MARGIN


#: Months' and days' abbreviations (APR, SEPT, TUES): the first three letters of each name, and the longer
#: ones in use. SCOWL lists several among proper names; a table calls them abbreviations.
_MONTHS_AND_DAYS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
                    "saturday", "sunday")
CALENDAR_ABBREVIATIONS = frozenset({name[:3] for name in _MONTHS_AND_DAYS} | {"sept", "tues", "thur", "thurs"})
