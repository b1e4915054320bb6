"""The packaging (issue 14): a quiet build, and a wheel that carries ``uw-service`` and its configuration.

tests/smoke_install.sh installs the wheel into a fresh environment and runs the installed commands.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # pip builds the wheel and installs it into new environments

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``pip wheel .`` (verbose, so the build backend's warnings show): the wheel and the output."""
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return next(out.glob("*.whl")), done.stdout + done.stderr


def test_build_prints_no_deprecation_warning(build: tuple[Path, str]) -> None:
    _, output = build
    lines = [line for line in output.splitlines() if "deprecat" in line.lower() or "!!" in line]
    assert lines == [], "\n".join(lines)


def test_wheel_has_uw_service_and_its_configuration(build: tuple[Path, str]) -> None:
    wheel, _ = build
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(archive.read(n).decode() for n in names if n.endswith("entry_points.txt"))
        metadata = next(archive.read(n).decode() for n in names if n.endswith("/METADATA"))
    assert "uw-service = service.cli:main" in entry_points
    assert {"service/gunicorn_conf.py", "service/cli.py", "dictionaries/data/metadata.json"} <= names
    assert "License-Expression: MIT" in metadata
    assert "\nVersion: 0.4.0\n" in metadata  # the release this wheel is (unspeakable_words.__version__)


def test_installed_uw_service_serves_from_any_directory(build: tuple[Path, str], tmp_path: Path) -> None:
    """The wheel in a fresh virtual environment (its dependencies from the package index): uw-service
    starts the gevent workers from an empty directory and answers. A dependency that only the test
    extras brought (gunicorn's gevent worker imports packaging) fails here."""
    wheel, _ = build
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    from reliability.common import clean_env, free_port

    port, cwd = free_port(), tmp_path / "elsewhere"
    cwd.mkdir()
    process = subprocess.Popen([str(venv / "bin" / "uw-service"), "--port", str(port), "--workers", "1"], cwd=cwd,
                               env=clean_env(HOME=str(tmp_path), PYTHONPATH=""), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/words/jazz?deck=double", timeout=1) as answer:
                    body = json.load(answer)
                    break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, process.stdout.read() if process.stdout else ""
                time.sleep(0.3)
        assert body["legal"] is True and body["deck"] == "double"
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert "Using worker: gevent" in output and "Traceback" not in output, output
    assert os.listdir(cwd) == []
