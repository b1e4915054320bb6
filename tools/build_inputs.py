"""What every reader of the dictionary build's inputs shares: the error that names a bad input (its file
and line), the shape of a key (a-z only, lower case) and the reading of a tab-separated file written by hand."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

KEY_RE = re.compile(r"[a-z]+")


class BuildError(Exception):
    """The inputs cannot be built (names the file and line)."""


def tsv_lines(path: Path, what: str) -> tuple[str, Iterator[tuple[str, str, list[str]]]]:
    """The sha256 of a hand-written tab-separated input (the metadata records it) and its lines as (where, line, fields),
    ``where`` being "file:line" for a BuildError, blank lines and ``#`` comments skipped. ``what`` names the file
    when it cannot be read."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BuildError(f"{path}: cannot read {what} ({exc.strerror})") from None

    def lines() -> Iterator[tuple[str, str, list[str]]]:
        for number, line in enumerate(raw.decode("utf-8").splitlines(), 1):
            if line.strip() and not line.startswith("#"):
                yield f"{path}:{number}", line, line.split("\t")

    return hashlib.sha256(raw).hexdigest(), lines()
