"""The language each page speaks: chosen per request, remembered in a cookie, said through gettext.

A request speaks the language its ``?lang=`` names (the switch on every page), else the one its
cookie remembers (the last switch used), else the best one its ``Accept-Language`` offers, else
English. The language is held in ``dictionaries.i18n``'s context variable for the request's
greenlet (the board runs gevent workers; each greenlet has its own context variables) and put
back when the request ends. A board rendered for every page of a game (after each commit, by
the watcher) names its language to ``speaking``.

Templates translate with Jinja's i18n extension (``{% trans %}``, ``_()``, ``ngettext()``), whose
callables read that same variable, so a template renders in whichever language is in use.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

from flask import Flask, Response, g, has_request_context, request

from dictionaries.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    _,
    best_language,
    language,
    ngettext,
    set_language,
)

#: The cookie that remembers the language a visitor chose with the switch (a year).
COOKIE = "uw_board_lang"
COOKIE_SECONDS = 365 * 24 * 3600


def requested() -> str:
    """The language this request asks for: ``?lang=``, else the cookie, else ``Accept-Language``."""
    for asked in (request.args.get("lang"), request.cookies.get(COOKIE)):
        if asked in LANGUAGES:
            return asked
    return best_language(request.headers.get("Accept-Language"))


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Speak ``lang`` in this thread for the block (a stream renders after its request has ended)."""
    previous = language()
    set_language(lang)
    try:
        yield
    finally:
        set_language(previous)


#: The parameters a page keeps when its language changes (the judge's words and game); no other.
KEPT = ("words", "game")


def switch_links() -> list[dict[str, Any]]:
    """The language switch: this page in each language (the judge's words and game kept).

    Each link is a query alone (``?lang=es``), which a browser resolves against the page's own
    address: it never names a path, so no address a visitor typed can make it lead off the board
    (a path such as ``/\\evil.example/x`` would otherwise become ``//evil.example/x``)."""
    # Only the judge keeps its parameters: a board page is rendered once and sent to every visitor.
    judge = request.endpoint == "board.judge_page"
    args = [(k, v) for k, v in request.args.items(multi=True) if judge and k in KEPT]
    now = language()
    return [{"code": code, "name": LANGUAGE_NAMES[code], "current": code == now,
             "href": "?" + urlencode([*args, ("lang", code)])} for code in LANGUAGES]


def _begin() -> None:
    g.previous_language = language()
    g.lang = requested()
    set_language(g.lang)


def _finish(response: Response) -> Response:
    """Say which language answered, that the answer depends on the visitor's language, and remember
    a language chosen with the switch (on pages only: a stream or a JSON call never sets it)."""
    if request.endpoint == "static":
        return response
    lang = g.get("lang", DEFAULT_LANGUAGE)
    response.headers["Content-Language"] = lang
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")
    asked = request.args.get("lang")
    if asked in LANGUAGES and response.mimetype == "text/html" and request.cookies.get(COOKIE) != asked:
        response.set_cookie(COOKIE, asked, max_age=COOKIE_SECONDS, samesite="Lax", httponly=True)
    return response


def _end(_exc: BaseException | None) -> None:
    previous = g.get("previous_language")
    if previous is not None:
        set_language(previous)


def _template_globals() -> dict[str, Any]:
    lang = language()
    return {"lang": lang, "languages": switch_links() if has_request_context() else []}


def install(app: Flask) -> None:
    """Choose each request's language and let the templates translate."""
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.policies["ext.i18n.trimmed"] = True  # as Babel extracts them (tools/catalogs.py)
    app.jinja_env.install_gettext_callables(_, ngettext, newstyle=True)  # type: ignore[attr-defined]  # Flask's jinja_env is typed as Environment, without the i18n extension's methods
    app.before_request(_begin)
    app.after_request(_finish)
    app.teardown_request(_end)
    app.context_processor(_template_globals)


__all__ = ["COOKIE", "install", "requested", "speaking", "switch_links"]
