"""Screenshots of the TV when a game ends (the chart, the winner and the game's best word), in English and Spanish.

It plays the showcase game of tests/history_games.py (four players, one of them Bartholomew Featherstonehaugh)
through the library in a throw-away database, serves it with ``uw-referee board`` and photographs the TV's page
at 1920x1080 in Debian's headless Chromium (``bash tests/setup_browser.sh`` installs it):

    .venv/bin/python docs/history_screenshots.py

writes docs/history-tv.png and docs/history-tv-es.png. tests/test_history_browser.py measures the same page.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from board_screenshots import shoot  # noqa: E402 - after the sys.path lines above
from board_support import Board, chromium, emulate_screen  # noqa: E402
from history_games import showcase_game  # noqa: E402

from dictionaries.dictionary import open_dictionary  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, chromium() as driver:
        db = Path(tmp) / "games.sqlite3"
        showcase_game(db, open_dictionary())
        with Board(db) as board:
            emulate_screen(driver, 1920, 1080)
            for lang, suffix in (("en", ""), ("es", "-es")):
                driver.get(f"{board.url}/?lang={lang}")
                time.sleep(1.0)  # the event stream connects ("Live" in the corner)
                shoot(driver, ROOT / "docs" / f"history-tv{suffix}.png", False)


if __name__ == "__main__":
    main()
