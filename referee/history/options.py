"""The history's option on a command of ``referee.game_cli`` (``export --html``), here so that its words are in the
history's catalog; light to import (Click and the catalog only), as ``game_cli`` loads it for every game command."""
from __future__ import annotations

from typing import Any

import click

from dictionaries.i18n import _


def html_option(f: Any) -> Any:
    """``--html``: the game as a page to share instead of JSON (``referee.history.page.export_html``)."""
    return click.option("--html", "as_html", is_flag=True, help=_(
        "A page to share instead: the chart, the scores and the log in one HTML file, with nothing outside it "
        "(uw-referee export --html > game.html)."))(f)


__all__ = ["html_option"]
