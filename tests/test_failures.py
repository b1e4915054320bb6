"""One mapping from errors to exit codes and messages (referee.failures), for the quick path and Click alike."""
from __future__ import annotations

import importlib

import pytest

from dictionaries.errors import DictionaryError, WordError
from dictionaries.i18n import msg
from referee.actions import RequestError
from referee.engine import CardsRefused, GameChanged, RulesError, SetupError
from referee.failures import ERROR, MAPPING, PARAMETER, REFUSED, USAGE, failure_of
from referee.store import Damaged, NoGame, StoreError


@pytest.mark.parametrize(("module", "name", "kind"), MAPPING)
def test_each_class_named_is_where_the_mapping_says(module: str, name: str, kind: str) -> None:
    """A class that moves must move in the mapping too: else its errors would reach users as tracebacks."""
    cls = getattr(importlib.import_module(module), name)
    assert isinstance(cls, type) and issubclass(cls, Exception) and kind in (REFUSED, ERROR, USAGE, PARAMETER)


@pytest.mark.parametrize(("exc", "kind", "code"), [
    (RulesError(msg("no")), REFUSED, 1), (GameChanged(msg("moved")), REFUSED, 1), (SetupError(msg("two")), USAGE, 2),
    (StoreError(msg("busy")), ERROR, 1), (NoGame(msg("none")), ERROR, 1), (Damaged(msg("bad")), ERROR, 1),
    (DictionaryError("gone"), ERROR, 1), (RequestError(msg("no roll")), USAGE, 2), (WordError("t4ps"), PARAMETER, 2),
])
def test_each_error_has_one_meaning(exc: Exception, kind: str, code: int) -> None:
    failure = failure_of(exc, "WORD")
    assert failure is not None and (failure.kind, failure.exit_code) == (kind, code)
    assert failure.changed == isinstance(exc, GameChanged) and failure.param == ("WORD" if kind == PARAMETER else None)


def test_a_refusal_keeps_what_the_table_may_overrule() -> None:
    failure = failure_of(CardsRefused(msg("the only Q is face up"), "Q"))
    assert failure is not None and failure.codes == ("discard_pile",) and failure.message == "the only Q is face up"


def test_an_error_no_command_expects_is_not_a_failure() -> None:
    assert failure_of(KeyError("x")) is None and failure_of(ValueError("x")) is None
