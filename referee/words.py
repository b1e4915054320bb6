"""Small words for people shared by the engine and the renderers: plurals and reason codes in words.

No imports: the engine and the quick path's renderers both load it.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

#: Each reason code of a verdict or a refusal, in a few words for the table ({level}: the game's size).
REASON_WORDS = {
    "too_short": "too short",
    "too_long": "too long",
    "proper_noun": "a proper noun",
    "abbreviation": "an abbreviation",
    "acronym": "an acronym",
    "contraction": "a contraction",
    "uncommon": "not common enough at size {level}",
    "unknown": "not a word at size {level}",
    "deck_limit": "not playable with this deck",
    "used": "already used",
    "discard_pile": "its cards lie face up in the discard pile",
}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 point``, ``2 points`` (``many`` for an irregular plural)."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


def reasons_words(codes: Iterable[str], level: int | str = 60) -> str:
    """Reason codes as words for people: ``a proper noun``, ``not a word at size 60``."""
    words = [REASON_WORDS.get(code, "not legal").format(level=level) for code in codes]
    return " and ".join(words) if words else "not legal"


def action_groups(events: Iterable[Any]) -> list[list[Any]]:
    """Events grouped into actions as the table sees them (a play with its roll is one)."""
    groups: list[list[Any]] = []
    for event in events:
        if event.starts_action or not groups:
            groups.append([event])
        else:
            groups[-1].append(event)
    return groups


def action_words(events: list[Any]) -> str:
    """One action in words: "Ben's CHAMP: 15 points, roll 16"."""
    first = events[0]
    rolls = [e for e in events[1:] if e.kind == "sanity_rolled"]
    therapy = [e for e in events[1:] if e.kind == "psychotherapy_rolled"]
    roll = f", roll {rolls[0].roll}" if rolls else ""
    if first.kind == "word_played":
        text = f"{first.player}'s {first.word}: {plural(first.score, 'point')}" + (roll or ", not yet rolled")
    elif first.kind == "discarded":
        text = f"{first.player}'s discard" + (f" of {first.letters.upper()}" if first.letters else "")
    elif first.kind == "bind_named":
        text = f"{first.by} naming {first.word} for Spell Binding"
    elif first.kind == "bind_done":
        text = "the close of Spell Binding" + (f" (the forced word's roll {rolls[0].roll})" if rolls else "")
    elif first.kind == "player_left":
        text = f"{first.player} leaving the game"
    elif first.kind == "sanity_rolled":
        text = f"{first.player}'s sanity roll {first.roll}"
    elif first.kind == "psychotherapy_rolled":
        therapy = [first]
        text = f"{first.player}'s Psychotherapy"
    else:
        text = "the set-up"
    if therapy:
        text += f", Psychotherapy roll {therapy[0].roll}" if therapy[0].roll is not None else ", no Psychotherapy roll"
    return text


def actions_words(events: Iterable[Any]) -> str:
    """Several actions in words, separated by semicolons."""
    return "; ".join(action_words(group) for group in action_groups(events))


__all__ = ["REASON_WORDS", "plural", "reasons_words", "action_groups", "action_words", "actions_words"]
