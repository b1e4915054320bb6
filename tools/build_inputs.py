"""What every reader of the dictionary build's inputs shares: the error that names a bad input (its file
and line) and the shape of a key (a-z only, lower case)."""
from __future__ import annotations

import re

KEY_RE = re.compile(r"[a-z]+")


class BuildError(Exception):
    """The inputs cannot be built (names the file and line)."""
