"""``uw-service``: run the installed word service with gunicorn and the project's own configuration.

After ``pip install .`` this works from any directory: the configuration is the installed module
``service.gunicorn_conf`` (gevent workers, limits, problem+json for gunicorn's own errors, no
control socket), not whatever gunicorn would pick up from the current directory.

Its help and Click's own messages speak the operator's language (``UW_LANG``, else the locale, else
English): the command is built after the language is chosen, since Click takes its help texts when
the command is made.
"""
from __future__ import annotations

import sys

import click

from dictionaries.i18n import _, choose_language
from unspeakable_words.click_i18n import speak

#: gunicorn's configuration, as an installed module (no file path: any working directory works).
GUNICORN_CONFIG = "python:service.gunicorn_conf"
#: The WSGI application factory, as the Procfile names it.
APP = "service.app:create_app()"


def gunicorn_argv(host: str, port: int, workers: int | None) -> list[str]:
    """The gunicorn command line ``uw-service`` runs (``--bind`` wins over the config's PORT)."""
    argv = ["gunicorn", "--config", GUNICORN_CONFIG, "--bind", f"{host}:{port}"]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return [*argv, APP]


def command() -> click.Command:
    """The ``uw-service`` command, its help in the language in use."""

    @click.command(context_settings={"help_option_names": ["-h", "--help"]}, help=_(
        "Serve the word API with gunicorn and the project's configuration.\n\n"
        "The environment variables of docs/deploy.md apply (UW_LEVEL, UW_DECK, UW_DICTIONARY, UW_ACCESS_LOG, "
        "WEB_CONCURRENCY, UW_LANG). A damaged dictionary stops the start with one line.\n\n"
        "Example: uw-service --host 127.0.0.1 --port 8000"))
    @click.option("--host", default="127.0.0.1", show_default=True,
                  help=_("Address to listen on; 0.0.0.0 for every interface (put a proxy in front: see docs/deploy.md)."))
    @click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
                  help=_("Port to listen on."))
    @click.option("--workers", type=click.IntRange(1, 64), default=None,
                  help=_("Worker processes (default: WEB_CONCURRENCY, else one per CPU plus one)."))
    def serve(host: str, port: int, workers: int | None) -> None:
        from gunicorn.app.wsgiapp import run

        sys.argv = gunicorn_argv(host, port, workers)
        run(prog="uw-service")

    return serve


def main(args: list[str] | None = None) -> None:
    """Entry point: choose the language (UW_LANG, else the locale, else English), then run."""
    speak(choose_language())
    command().main(args=args, prog_name="uw-service")


if __name__ == "__main__":
    main()
