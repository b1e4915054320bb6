"""Click in the project's languages: Click's own messages (usage errors, help headings) have their
catalog here (the ``click`` domain), and ``speak`` points Click at the project's catalogs.

Both command lines use it (``uw-referee`` in ``referee.cli_common``, ``uw-service`` in ``service.cli``).
"""
from __future__ import annotations

import os
import sys

from dictionaries.i18n import _, ngettext, register_catalog, set_language

register_catalog("click", os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale"))


def speak(language: str) -> None:
    """Speak ``language`` from now on: the project's messages and Click's own (usage errors, help headings).

    Click's modules call the standard library's ``gettext`` and ``ngettext``, bound at their import;
    they are pointed at this project's catalogs (which hold Click's messages in the ``click`` domain)."""
    set_language(language)
    for name, module in list(sys.modules.items()):
        if name == "click" or name.startswith("click."):
            if callable(getattr(module, "_", None)):
                setattr(module, "_", _)  # noqa: B010 - Click's module globals, which mypy cannot see
            if callable(getattr(module, "ngettext", None)):
                setattr(module, "ngettext", ngettext)  # noqa: B010 - as above
