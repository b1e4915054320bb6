"""The packaging (issue 14): a quiet build, and a wheel that carries ``uw-service`` and its configuration.

tests/smoke_install.sh installs the wheel into a fresh environment and runs the installed commands.
"""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

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
