"""One meaning for each error a command meets: its exit status and how it is said, for both front doors.

The quick path (``referee.quick``) and the Click commands (``referee.cli``, ``game_cli``, ``table_cli``) both
ask ``failure_of``: a refusal by the rules exits 1 with the refusal (and how the table may overrule it); a file
or dictionary that cannot be used exits 1 with one ``Error:`` line; a request that does not fit the game, or a
bad word, is a usage error (exit 2, said with Click's usage line). ``referee.cli_failures`` turns a ``Failure``
into Click's exception; the quick path prints the first two itself and has Click show a usage error, so the
input is judged once.

Light on purpose: the quick path imports it on every command, so it imports no library module. An error can
only be an instance of a class whose module is loaded: each class is looked up in ``sys.modules``.
"""
from __future__ import annotations

import sys

from dictionaries.i18n import message_of
from referee.terminal import EXIT_REFUSED, EXIT_USAGE
from referee.values import value

REFUSED = "refused"      #: the rules refuse the action; nothing changed (exit 1)
ERROR = "error"          #: the games file or the dictionary cannot be used (exit 1)
USAGE = "usage"          #: the request does not fit this game or this moment (exit 2)
PARAMETER = "parameter"  #: a value that cannot be one (a word with digits): a usage error naming it (exit 2)

#: (module, class, kind), the first match wins: GameChanged and SetupError (a set-up the command line gave)
#: before the RulesError they are.
MAPPING: tuple[tuple[str, str, str], ...] = (
    ("referee.events", "GameChanged", REFUSED),
    ("referee.events", "SetupError", USAGE),
    ("referee.events", "RulesError", REFUSED),
    ("referee.store_format", "StoreError", ERROR),
    ("dictionaries.errors", "DictionaryError", ERROR),
    ("referee.actions", "RequestError", USAGE),
    ("dictionaries.errors", "WordError", PARAMETER),
)


@value(frozen=True)
class Failure:
    """What the user is told of an error: its kind (``REFUSED``...), the message, and for a refusal the codes
    that say what the table may overrule and whether the game moved on meanwhile (another device acted);
    for a bad value, the parameter it was given for."""

    kind: str
    message: str
    codes: tuple[str, ...] = ()
    changed: bool = False
    param: str | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_USAGE if self.kind in (USAGE, PARAMETER) else EXIT_REFUSED


def failure_of(exc: BaseException, param: str | None = None) -> Failure | None:
    """The failure ``exc`` is for the user, or None for an error no command expects (a bug: it propagates).
    ``param``: the parameter a bad value (``WordError``) was given for (Click's "Invalid value for WORD")."""
    for module, name, kind in MAPPING:
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            codes = tuple(getattr(exc, "codes", ())) if kind == REFUSED else ()
            return Failure(kind, message_of(exc), codes, name == "GameChanged",
                           param if kind == PARAMETER else None)
    return None


__all__ = ["ERROR", "MAPPING", "PARAMETER", "REFUSED", "USAGE", "Failure", "failure_of"]
