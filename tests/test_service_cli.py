"""``uw-service``: the installed service with the project's gunicorn configuration, from any directory."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from reliability.common import clean_env, free_port
from service.cli import GUNICORN_CONFIG, command, gunicorn_argv
from unspeakable_words.click_i18n import speak

pytestmark = pytest.mark.slow  # uw-service started as a real gunicorn

UW_SERVICE = Path(sys.executable).with_name("uw-service")


def test_help_has_an_example_and_the_options() -> None:
    result = CliRunner().invoke(command(), ["--help"])
    assert result.exit_code == 0
    for text in ("--host", "--port", "--workers", "Example: uw-service --host 127.0.0.1 --port 8000", "UW_ACCESS_LOG"):
        assert text in result.output


def test_help_and_usage_errors_in_spanish() -> None:
    """UW_LANG=es (or a Spanish locale): the help, Click's headings and its usage errors speak Spanish."""
    speak("es")
    result = CliRunner().invoke(command(), ["--help"])
    assert result.exit_code == 0
    assert "Sirve la API de palabras" in result.output and "Ejemplo: uw-service --host 127.0.0.1 --port 8000" in result.output
    assert "Puerto en el que escuchar." in result.output
    bad = CliRunner().invoke(command(), ["--port", "70000"])
    assert bad.exit_code == 2 and "Port to listen" not in bad.output


def test_bad_port_is_a_usage_error() -> None:
    result = CliRunner().invoke(command(), ["--port", "70000"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_gunicorn_gets_the_installed_configuration() -> None:
    argv = gunicorn_argv("0.0.0.0", 9000, 2)
    assert argv[argv.index("--config") + 1] == GUNICORN_CONFIG == "python:service.gunicorn_conf"
    assert argv[argv.index("--bind") + 1] == "0.0.0.0:9000" and argv[argv.index("--workers") + 1] == "2"
    assert argv[-1] == "service.app:create_app()"


def test_serves_from_any_directory_and_writes_nothing_in_home(tmp_path: Path) -> None:
    """Started from an empty directory with an empty HOME: it answers, with the project's headers,
    and leaves no control socket directory (or anything else) in HOME."""
    home, cwd = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    cwd.mkdir()
    port = free_port()
    process = subprocess.Popen([str(UW_SERVICE), "--port", str(port), "--workers", "1"], cwd=cwd,
                               env=clean_env(HOME=str(home), PYTHONPATH=""), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/words/jazz?deck=double", timeout=1) as answer:
                    body, headers = json.load(answer), answer.headers
                    break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, process.stdout.read() if process.stdout else ""
                time.sleep(0.2)
        assert body["legal"] is True and body["deck"] == "double"
        assert headers["X-Content-Type-Options"] == "nosniff"
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert process.returncode == 0, output
    assert "Using worker: gevent" in output, output  # the project's configuration, not gunicorn's sync default
    assert os.listdir(home) == [] and os.listdir(cwd) == []
