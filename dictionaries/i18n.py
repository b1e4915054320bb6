"""Translations: which language a face speaks, its gettext catalogs, and sentences kept translatable.

Every face (the CLI, the board, the word service) says its sentences through this module. Code that
must stay free of any face (the engine, the verdicts) builds ``Message`` values with ``msg`` and
``nmsg``: a ``Message`` is a ``str`` holding the English sentence, so it prints, compares and
serialises as English, and it keeps its template and parameters so that ``say`` can put it into the
language in use. Faces translate their own sentences with ``_`` and ``ngettext``.

This module knows no package but its own: each package that speaks registers its catalog when it is
imported (``register_catalog`` in its ``__init__``), so the word engine never names the faces.

The language in use lives in a context variable: a CLI sets it once, a web request sets it for its
own thread or greenlet. English needs no catalog and loads no gettext machinery (the quick path's
start-up stays as it is); another language loads the compiled catalogs (``.mo``) of every registered
package, ``<its locale dir>/<lang>/LC_MESSAGES/<domain>.mo``. Babel extracts with the keywords ``_``,
``ngettext:1,2``, ``msg`` and ``nmsg:1,2`` (``tools/catalogs.py``; docs/development.md, "Adding a language").
"""
from __future__ import annotations

import os
from contextvars import ContextVar

TYPE_CHECKING = False  # the types only: the quick path never loads typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Protocol

    class Translations(Protocol):
        def gettext(self, message: str) -> str: ...
        def ngettext(self, singular: str, plural: str, n: int) -> str: ...

#: The languages the referee, the board and the service speak; the first is the default.
LANGUAGES: tuple[str, ...] = ("en", "es")
DEFAULT_LANGUAGE = "en"
#: The languages' own names, for a language switch.
LANGUAGE_NAMES = {"en": "English", "es": "Español"}
#: The registered catalogs: (gettext domain, its ``locale`` directory), in the order of registration.
_catalogs: list[tuple[str, str]] = []


def register_catalog(domain: str, locale_dir: str) -> None:
    """Add a package's catalog, ``<locale_dir>/<lang>/LC_MESSAGES/<domain>.mo``, to every language.

    A package calls it once, in its ``__init__``; a second call with the same values changes nothing.
    The catalogs are chained in the order they were registered (no message id is in two of them)."""
    if (domain, locale_dir) in _catalogs:
        return
    _catalogs.append((domain, locale_dir))
    for loaded in [lang for lang in _loaded if lang != DEFAULT_LANGUAGE]:
        del _loaded[loaded]  # chained again, with the new catalog, when next asked for


def catalogs() -> tuple[tuple[str, str], ...]:
    """Every registered catalog as (domain, locale directory), in the order of registration."""
    return tuple(_catalogs)


class Message(str):
    """A sentence in English that can still be said in another language: ``say(message)``.

    ``template`` is the catalog's message id (``plural`` its plural form, chosen by ``n``);
    ``params`` fill its ``{name}`` fields and may be ``Message`` values themselves."""

    template: str
    plural: str | None
    n: int | None
    params: dict[str, Any]

    def __new__(cls, template: str, params: dict[str, Any], plural: str | None = None,
                n: int | None = None) -> Message:
        chosen = template if plural is None or n == 1 else plural
        self = super().__new__(cls, chosen.format(**params) if params else chosen)
        self.template, self.plural, self.n, self.params = template, plural, n, params
        return self

    def __reduce__(self) -> Any:
        return (Message, (self.template, self.params, self.plural, self.n))

    def to_json(self) -> dict[str, Any]:
        """This message as JSON values (a stored view keeps it so that a later reader can translate it)."""
        params = {k: v.to_json() if isinstance(v, Message) else v for k, v in self.params.items()}
        data: dict[str, Any] = {"message": self.template, "params": params}
        if self.plural is not None:
            data.update(plural=self.plural, n=self.n)
        return data

    def translated(self, translations: Translations) -> str:
        """This sentence in the language of ``translations``."""
        if self.plural is None:
            text = translations.gettext(self.template)
        else:
            text = translations.ngettext(self.template, self.plural, self.n if self.n is not None else 1)
        if not self.params:
            return text
        return text.format(**{k: v.translated(translations) if isinstance(v, Message) else v
                              for k, v in self.params.items()})


def message_from_json(data: Any) -> Message | None:
    """The inverse of ``Message.to_json`` (None for anything else: a view written before messages were kept)."""
    if not isinstance(data, dict) or not isinstance(data.get("message"), str) or not isinstance(data.get("params"), dict):
        return None
    try:
        params = {k: message_from_json(v) if isinstance(v, dict) else v for k, v in data["params"].items()}
        data["message"].format(**params)  # every field has its value
        return Message(data["message"], params, data.get("plural"), data.get("n"))
    except (KeyError, IndexError, ValueError, TypeError):
        return None


def msg(template: str, /, **params: Any) -> Message:
    """A translatable sentence: ``msg("{player} goes first.", player=name)``."""
    return Message(template, params)


def nmsg(singular: str, plural: str, n: int, /, **params: Any) -> Message:
    """A translatable sentence with a singular and a plural form, chosen by ``n`` (also ``{n}``)."""
    return Message(singular, {"n": n, **params}, plural, n)


class English:
    """The source language: every message as written."""

    def gettext(self, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural


_ENGLISH = English()
_loaded: dict[str, Translations] = {"en": _ENGLISH}
_current: ContextVar[str] = ContextVar("uw_language", default=DEFAULT_LANGUAGE)


def catalog_path(language: str, domain: str, locale_dir: str, suffix: str = ".mo") -> str:
    """Where a domain's catalog for ``language`` lives."""
    return os.path.join(locale_dir, language, "LC_MESSAGES", domain + suffix)


def translations(language: str) -> Translations:
    """Every domain's catalog for ``language``, chained (English for an unknown language)."""
    found = _loaded.get(language)
    if found is not None:
        return found
    if language not in LANGUAGES:
        return _ENGLISH
    import gettext  # only for a language other than English

    chain: gettext.NullTranslations | None = None
    for domain, locale_dir in _catalogs:
        path = catalog_path(language, domain, locale_dir)
        try:
            with open(path, "rb") as f:
                catalog: gettext.NullTranslations = gettext.GNUTranslations(f)
        except FileNotFoundError:
            continue
        if chain is None:
            chain = catalog
        else:
            chain.add_fallback(catalog)
    result: Translations = chain if chain is not None else _ENGLISH
    _loaded[language] = result
    return result


def set_language(language: str) -> None:
    """Speak ``language`` from now on, in this thread or task (``en`` or ``es``)."""
    _current.set(language if language in LANGUAGES else DEFAULT_LANGUAGE)


def language() -> str:
    """The language in use."""
    return _current.get()


def current() -> Translations:
    """The catalogs of the language in use."""
    return translations(_current.get())


def _(message: str) -> str:
    """``message`` in the language in use."""
    lang = _current.get()
    return message if lang == DEFAULT_LANGUAGE else translations(lang).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the language in use."""
    lang = _current.get()
    if lang == DEFAULT_LANGUAGE:
        return singular if n == 1 else plural
    return translations(lang).ngettext(singular, plural, n)


def say(text: str) -> str:
    """``text`` in the language in use: a ``Message`` is translated, any other string is as it is."""
    if not isinstance(text, Message) or _current.get() == DEFAULT_LANGUAGE:
        return str(text) if isinstance(text, Message) else text
    return text.translated(current())


def say_in(text: str, language_code: str) -> str:
    """``text`` in ``language_code`` (for a web request that names its own language)."""
    if isinstance(text, Message) and language_code != DEFAULT_LANGUAGE:
        return text.translated(translations(language_code))
    return str(text)


def language_of_locale(value: str | None) -> str | None:
    """The supported language a locale name or language tag names (``es_ES.UTF-8`` -> ``es``), or None."""
    if not value:
        return None
    code = value.split(".", 1)[0].split("@", 1)[0].replace("-", "_").split("_", 1)[0].lower()
    return code if code in LANGUAGES else None


def choose_language(option: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language a command speaks: ``--lang``, else ``UW_LANG``, else the locale, else English.

    The locale is the first set of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` (POSIX's order); a
    locale naming an unsupported language (``fr_FR``, ``C``) means English."""
    env = os.environ if environ is None else environ
    if option:
        return option if option in LANGUAGES else DEFAULT_LANGUAGE
    chosen = language_of_locale(env.get("UW_LANG"))
    if chosen:
        return chosen
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return language_of_locale(value) or DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def best_language(accept_language: str | None) -> str:
    """The best supported language for an HTTP ``Accept-Language`` header (English when none fits)."""
    best, best_q = DEFAULT_LANGUAGE, 0.0
    for part in (accept_language or "").split(","):
        tag, _sep, rest = part.strip().partition(";")
        q = 1.0
        if rest.strip().lower().startswith("q="):  # HTTP's parameter names are case-insensitive
            try:
                q = float(rest.strip()[2:])
            except ValueError:
                q = 0.0
        code = language_of_locale(tag.strip()) if tag.strip() != "*" else DEFAULT_LANGUAGE
        if code and q > best_q:
            best, best_q = code, q
    return best


def message_of(error: BaseException) -> str:
    """An error's sentence, still translatable: its first argument when that is a ``Message``."""
    first = error.args[0] if len(error.args) == 1 else None
    return first if isinstance(first, Message) else str(error)


register_catalog("dictionaries", os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale"))
