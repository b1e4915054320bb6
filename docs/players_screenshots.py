"""Screenshots of the players' side of the board (``board --players``), in English and Spanish: the TV with the
join code and its QR code, a phone's join page and a phone's turn (a word typed, its verdict shown).

It plays a short game with the real CLI in a throw-away database, serves it with ``uw-referee board
--players`` and photographs the pages in Debian's headless Chromium (``bash tests/setup_browser.sh``):

    .venv/bin/python docs/players_screenshots.py

writes docs/players-tv.png, players-phone-join.png, players-phone-turn.png (and -es for Spanish).
tests/test_board_players_browser.py plays a whole game through the same pages.
"""
from __future__ import annotations

import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "docs"))

from board_screenshots import shoot  # noqa: E402
from board_support import Board, chromium, emulate_phone, emulate_screen, uw  # noqa: E402


def main() -> None:
    out = ROOT / "docs"
    with tempfile.TemporaryDirectory() as tmp, chromium() as driver:
        db = Path(tmp) / "games.sqlite3"
        uw(db, "new", "Cindi", "Paul", "Sue", "--first", "Cindi", "--spell-binding")
        with Board(db, "--players") as board:
            secret = ""
            while not secret:
                line = board.proc.stdout.readline() if board.proc.stdout else ""
                if "host#" in line:
                    secret = line.strip().rsplit("host#", 1)[1]
                elif not line:
                    raise SystemExit("the board printed no host link")
            for lang, suffix in (("en", ""), ("es", "-es")):
                emulate_screen(driver, 1920, 1080)
                driver.get(f"{board.url}/?lang={lang}")
                time.sleep(1.0)
                shoot(driver, out / f"players-tv{suffix}.png", False)
                code = driver.find_element("id", "join-code").text.strip()
                # Each language from its own origin (its own cookie and storage), the seat released between.
                origin = board.url if lang == "en" else board.url.replace("127.0.0.1", "localhost")
                emulate_phone(driver, 360, 740)
                driver.get(f"{origin}/join?lang={lang}")
                time.sleep(0.5)
                driver.find_element("id", "join-code-input").send_keys(code)
                driver.find_element("css selector", "input[name=seat][value=Cindi]").click()
                shoot(driver, out / f"players-phone-join{suffix}.png", True)
                driver.find_element("css selector", "#join-form button").click()
                time.sleep(0.8)
                driver.find_element("id", "word").send_keys("champ")
                time.sleep(1.0)
                shoot(driver, out / f"players-phone-turn{suffix}.png", True)
                release = urllib.request.Request(f"{board.url}/api/games/1/seats/Cindi", method="DELETE",
                                                 headers={"Authorization": f"Bearer {secret}"})
                urllib.request.urlopen(release, timeout=10).read()


if __name__ == "__main__":
    main()
