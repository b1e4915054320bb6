"""The project's own judgments of forms (``tools/forms_judged.tsv``, issue 36) in rule 9: ``refuse`` keeps a form
rule 9 would move where it was, ``accept`` moves a regular form of a legal base that a guard of rule 9 refused, at
70, 80 or 95, and the rule table's own guards still win (BLOWED, STOPED).

Built on toy inputs shaped like the real ones, with real words: CHORE is only a noun in WordNet (so CHORED is
refused by rule 9's part-of-speech guard), SALIVA a countable-looking noun (so rule 9 moves SALIVAS), BALMING is
listed only at 95 and written, so rule 4 leaves it out unless it is accepted."""
from __future__ import annotations

from pathlib import Path

import pytest

from dictionaries.dictionary import Dictionary
from dictionaries.verdict import judge
from tools.build_dictionary import build
from tools.build_inputs import BuildError
from tools.forms_judged import DEFAULT_FORMS_JUDGED, read_forms_judged
from tools.frequencies import Frequencies
from tools.word_policy import Reading, collect
from tools.wordnet import read_wordnet

SCOWL = {
    "english-words.10": ["chore", "saliva", "blow", "balm", "sword", "stop"],
    "english-words.80": ["chored", "salivas", "blowed", "sworded", "stoped"],
    "english-words.95": ["balming"],
}
#: (lemma, part file, WordNet lexicographer file).
WORDNET = [("chore", "noun", 4), ("saliva", "noun", 8), ("blow", "verb", 38), ("blow", "noun", 4),
           ("balm", "noun", 6), ("sword", "noun", 6), ("stop", "verb", 38)]
FREQUENCIES = {"chore": 3.4, "saliva": 3.3, "blow": 4.5, "balm": 3.3, "sword": 4.2, "stop": 5.5, "balming": 2.1}
JUDGED = ("# toy judgments\nchored\taccept\tCollins: to do chores\nsalivas\trefuse\ta mass noun\n"
          "blowed\taccept\tno: BLOW has BLEW\nstoped\taccept\tno: STOP doubles its P\nbalming\taccept\tMW: to balm\n")


def write_inputs(root: Path, judged: str | None) -> tuple[Path, Path, Frequencies, Path | None]:
    (root / "scowl").mkdir(parents=True)
    for name, entries in SCOWL.items():
        (root / "scowl" / name).write_text("".join(f"{e}\n" for e in entries), encoding="utf-8")
    wordnet = root / "wordnet"
    wordnet.mkdir()
    header = "  1 This toy WordNet is shaped like WordNet 3.0's database files (tests only).\n"
    for suffix in ("noun", "verb", "adj", "adv"):
        rows = [(i, lemma, lexfile) for i, (lemma, part, lexfile) in enumerate(WORDNET) if part == suffix]
        (wordnet / f"data.{suffix}").write_text(header + "".join(
            f"{1000 + i:08d} {lexfile:02d} {suffix[0]} 01 {lemma} 0 000 | a gloss of {lemma}\n"
            for i, lemma, lexfile in rows), encoding="latin-1")
        (wordnet / f"index.{suffix}").write_text(header + "".join(
            f"{lemma} {suffix[0]} 1 0 1 0 {1000 + i:08d}\n" for i, lemma, _ in sorted(rows, key=lambda r: r[1])),
            encoding="latin-1")
    (wordnet / "verb.exc").write_text("blew blow\nblown blow\n", encoding="latin-1")
    (root / "frequencies.tsv").write_text("".join(f"{w}\ten\t{z}\n" for w, z in FREQUENCIES.items()))
    (root / "overlay.txt").write_text("# no corrections\n")
    path = None
    if judged is not None:
        path = root / "forms_judged.tsv"
        path.write_text(judged, encoding="utf-8")
    return root / "scowl", root / "overlay.txt", Frequencies.from_file(root / "frequencies.tsv"), path


@pytest.fixture(scope="module", params=["without", "with"])
def toy(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Dictionary]:
    root = tmp_path_factory.mktemp(f"judged_{request.param}")
    scowl, overlay, frequencies, path = write_inputs(root, JUDGED if request.param == "with" else None)
    build(scowl, overlay, root / "out", "toy", frequencies=frequencies, wordnet=read_wordnet(root / "wordnet"),
          judged=read_forms_judged(path) if path else None)
    return request.param, Dictionary(root / "out")


def test_refuse_keeps_a_form_rule_9_would_move_where_scowl_put_it(toy: tuple[str, Dictionary]) -> None:
    judged, dictionary = toy
    assert judge(dictionary, "salivas").legal == (judged == "without")
    if judged == "with":
        assert list(judge(dictionary, "salivas").codes) == ["uncommon"]  # the reason it has without rule 9
        assert judge(dictionary, "salivas", 80).legal


def test_accept_moves_a_form_a_guard_of_rule_9_refused_at_80_and_at_95(toy: tuple[str, Dictionary]) -> None:
    judged, dictionary = toy
    assert judge(dictionary, "chored").legal == (judged == "with")  # CHORE is only a noun in WordNet
    assert judge(dictionary, "balming").legal == (judged == "with")  # size 95, and rule 4 would leave it out
    if judged == "without":
        assert list(judge(dictionary, "balming", 95).codes) == ["unknown"]
    assert dictionary.metadata["policy_changes"]["judged_forms"] == (2 if judged == "with" else 0)


def test_the_rule_table_s_guards_win_over_accept(toy: tuple[str, Dictionary]) -> None:
    _judged, dictionary = toy
    for word in ("blowed", "stoped", "sworded"):  # BLOW has BLEW, STOP doubles its P; SWORDED is not judged
        assert not judge(dictionary, word).legal, word


def test_readings_name_what_rule_9_moved_and_what_an_accept_would_move(tmp_path: Path) -> None:
    scowl, overlay, frequencies, _ = write_inputs(tmp_path, None)
    readings: dict[str, Reading] = {}
    collect(scowl, overlay, frequencies, read_wordnet(tmp_path / "wordnet"), None, readings)
    assert readings == {"salivas": ("saliva", "plural_or_third_person", "moved"),
                        "chored": ("chore", "past", "refused"), "sworded": ("sword", "past", "refused"),
                        "balming": ("balm", "present_participle", "refused")}  # no BLOWED, STOPED


def test_the_judgments_file_is_read_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "judged.tsv"
    path.write_text(JUDGED, encoding="utf-8")
    judged = read_forms_judged(path)
    assert judged.accepted() == {"chored", "blowed", "stoped", "balming"} and judged.refused() == {"salivas"}
    for bad in ("chored\tyes\tnote\n", "chored\taccept\n", "CHORED\taccept\tx\nchored\trefuse\ty\n", "ch-ored\taccept\tx\n"):
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(BuildError, match="judged.tsv:"):
            read_forms_judged(path)


def test_the_shipped_judgments_file_reads() -> None:
    judged = read_forms_judged(DEFAULT_FORMS_JUDGED)
    lines = [line for line in DEFAULT_FORMS_JUDGED.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    assert len(judged.verdicts) == len(lines)
    assert lines == sorted(lines)


def test_the_candidates_leave_out_judged_samples_and_legal_spellings() -> None:
    from tools.form_candidates import judged_samples, refused_forms

    samples = judged_samples()
    assert {"chored", "salivas", "heired"} <= samples  # judged in forms_issue36_fourth.tsv, moved_issue36_fourth.tsv
    readings: dict[str, Reading] = {"chored": ("chore", "past", "refused"), "sworded": ("sword", "past", "refused"),
                                    "salivas": ("saliva", "plural_or_third_person", "moved")}
    assert refused_forms(readings, legal={"sworded"}) == {"chored"}  # SWORDED legal after all (the overlay, say)
