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


def test_wheel_holds_no_gpl_text_and_its_metadata_says_what_it_holds(build: tuple[Path, str], tmp_path: Path) -> None:
    """Issue 36: the wheel's METADATA names MIT for the code plus SCOWL's and WordNet's licences for their data,
    its licence files are exactly those (and wordfreq's credit), nothing in it is GCIDE's or GPL text, and every
    definition it ships is WordNet's or one of the project's own glosses (tools/glosses.tsv)."""
    from dictionaries import OWN_FLAG
    from dictionaries.definitions import Definitions
    from tools.glosses import read_glosses

    wheel, _ = build
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
        contents = {n: archive.read(n) for n in names}
        archive.extractall(tmp_path)
    headers = [line for line in metadata.split("\n\n", 1)[0].splitlines()]
    assert "License-Expression: MIT AND LicenseRef-SCOWL AND LicenseRef-WordNet" in headers
    assert sorted(line for line in headers if line.startswith("License-File:")) == [
        "License-File: LICENSE", "License-File: dictionaries/data/SCOWL-COPYRIGHT",
        "License-File: dictionaries/data/WordNet-LICENSE", "License-File: dictionaries/data/wordfreq-LICENSE"]
    assert not [line for line in headers if line.startswith("Classifier: License")]  # PEP 639: the expression says it
    assert not [n for n in names if "gcide" in n.lower() or "gpl" in n.lower()]
    for name, data in contents.items():
        lowered = data.lower()
        assert b"gcide" not in lowered and b"general public license" not in lowered, name
    shipped = json.loads(contents["dictionaries/data/metadata.json"])
    assert [source["name"] for source in shipped["sources"]] == ["SCOWL", "wordfreq", "WordNet", "own glosses"]
    definitions = Definitions(tmp_path / "dictionaries" / "data")
    text = definitions._text
    own = {gloss for senses in read_glosses().senses.values() for _part, gloss in senses}
    flags = set()
    for i in range(len(definitions._offsets) - 1):
        start, end = definitions._base + definitions._offsets[i], definitions._base + definitions._offsets[i + 1]
        flags.add(text[start] & ~0x3F)
        if text[start] & OWN_FLAG:
            assert text[start + 1:end].decode("utf-8") in own
    assert flags == {0, OWN_FLAG}  # WordNet's (no flag) and the project's own: no third source
