"""TEMPORARY until merge (coordinator replaces this file): the dictionary build, outside the runtime package.

The coordinator moves ``dictionaries/build.py`` here (``git mv -f dictionaries/build.py
tools/build_dictionary.py``; issue 19 edits it meanwhile). Until then this file lends its names, so that
``make dictionary`` (``python -m tools.build_dictionary``) and the tests already use the new home.
"""
from __future__ import annotations

import sys

from dictionaries.build import (
    DEFAULT_OVERLAY,
    DEFAULT_SCOWL,
    DEFAULT_WORDNET,
    FOREIGN_WORD_MARGIN,
    BuildError,
    Frequencies,
    WordNet,
    build,
    classify,
    collect,
    main,
    read_overlay,
    read_wordnet,
)

__all__ = ["DEFAULT_OVERLAY", "DEFAULT_SCOWL", "DEFAULT_WORDNET", "FOREIGN_WORD_MARGIN", "BuildError", "Frequencies",
           "WordNet", "build", "classify", "collect", "main", "read_overlay", "read_wordnet"]

if __name__ == "__main__":
    sys.exit(main())
