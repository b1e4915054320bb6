"""Screenshots of the board and the judge page, at TV and at phone size, in English and Spanish.

It plays short games with the real CLI in throw-away databases (3, 6 and 8 players, one of them
Bartholomew Featherstonehaugh), serves each with ``uw-referee board`` and photographs the pages in
Debian's headless Chromium (``bash tests/setup_browser.sh`` installs it):

    .venv/bin/python docs/board_screenshots.py

writes docs/board-tv-3.png, board-tv-6.png, board-tv-8.png, board-phone.png (and -es for Spanish),
board-tv.png (the README's, = board-tv-3) and judge-tv.png, judge-phone.png.
tests/test_board_layout.py checks the same layouts in the browser (above the fold, names whole).
"""
from __future__ import annotations

import base64
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from board_support import LAYOUT_PLAYERS, Board, chromium, emulate_phone, emulate_screen, layout_game  # noqa: E402 - after the sys.path lines above

JUDGE = "/judge?words=taps+apts+london+champ"


def shoot(driver: object, path: Path, full: bool) -> None:
    shot = driver.execute_cdp_cmd("Page.captureScreenshot",  # type: ignore[attr-defined]  # selenium's Chrome driver has it, its base class does not
                                  {"format": "png", "captureBeyondViewport": full})
    path.write_bytes(base64.b64decode(shot["data"]))
    print(f"wrote {path.relative_to(ROOT)}")


def main() -> None:
    out = ROOT / "docs"
    with tempfile.TemporaryDirectory() as tmp, chromium() as driver:
        for count, players in LAYOUT_PLAYERS.items():
            db = Path(tmp) / f"games-{count}.sqlite3"
            layout_game(db, players)
            with Board(db) as board:
                sizes = [("tv", (1920, 1080), False)] + ([("phone", (390, 844), True)] if count == 3 else [])
                for name, size, full in sizes:
                    if name == "phone":
                        emulate_phone(driver, *size)
                    else:
                        emulate_screen(driver, *size)
                    for lang in ("en", "es"):
                        driver.get(f"{board.url}/?lang={lang}")
                        time.sleep(1.0)  # the event stream connects ("Live" in the corner)
                        suffix = "" if lang == "en" else "-es"
                        label = f"tv-{count}" if name == "tv" else "phone"
                        shoot(driver, out / f"board-{label}{suffix}.png", full)
                        if count == 3 and lang == "en":
                            if name == "tv":
                                shoot(driver, out / "board-tv.png", full)
                            driver.get(board.url + JUDGE)
                            shoot(driver, out / f"judge-{name}.png", full)


if __name__ == "__main__":
    main()
