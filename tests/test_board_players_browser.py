"""A whole game played from phones: headless Chromium (Debian's, through selenium) against ``uw-referee board
--players --host 0.0.0.0``. Four isolated browser sessions (four Chromium processes, each with its own
profile): the TV (with the host's page in a second window) and three phones, each also on its own loopback
address (127.0.0.1 to .4), so each has its own cookies, storage and address for the rate limits. Bob's phone
is in Spanish. Game 1 has a refused word, an undo of one's own action, Spell Binding named from another phone,
a Psychotherapy roll, an undo asked from a phone and confirmed on the host's page, and a win. Then a new game
starts at the keyboard while the board runs: the TV shows its own join link, QR code and code (game 1's code
takes no seat in it), the phones follow it, and game 2 plays the Unspellable Oath and Last Words from the
phones. Each game's export then equals the same game played with the CLI.

The test also takes the README's screenshots of the players' side (docs/players-*.png; written there with
``UW_WRITE_DOCS=1``, else to a throw-away folder): the TV with the
join code, a phone's join screen and a phone's turn, in English (Ann's phone) and Spanish (Bob's), so they
show the pages as this game played them."""
from __future__ import annotations

import base64
import json
import os
import re
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from board_support import (
    Board,
    chromium,
    console_errors,
    emulate_phone,
    emulate_screen,
    free_port_everywhere,
    players_secrets,
    uw,
)

pytestmark = pytest.mark.slow

#: Where the screenshots go: docs/ when asked (``UW_WRITE_DOCS=1``, to renew the README's pictures), else a
#: throw-away folder, so that a test run leaves the working tree as it was (the join code and port are random).
DOCS = (Path(__file__).resolve().parent.parent / "docs" if os.environ.get("UW_WRITE_DOCS") == "1"
        else Path(tempfile.mkdtemp(prefix="uw-players-shots-")))


def shoot(driver: Any, name: str, full: bool = True) -> None:
    """A screenshot for the README, from the page as the test sees it."""
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": full})
    (DOCS / name).write_bytes(base64.b64decode(shot["data"]))

NEW = ("new", "Ann", "Bob", "Cy", "--first", "Ann", "--spell-binding", "--psychotherapy", "--target", "10")
#: The same game at the keyboard: every action the phones take below, in the same order.
CLI_GAME = [("play", "look", "--roll", "2"), ("discard", "ttrrddp"), ("undo",), ("discard", "oclnusm"),
            ("bind", "column", "--by", "Cy"), ("bind", "--pass", "--by", "Ann"), ("bind", "--done"), ("roll", "15"),
            ("play", "cthulhu", "--roll", "1", "--allow"),
            ("discard", "ffwwyyv"), ("roll", "20"), ("discard", "ttrrddp"), ("play", "taps", "--roll", "3"),
            ("undo",), ("play", "taps", "--roll", "15")]
#: The next game, started at the keyboard while the board runs: the Oath and Last Words, played from the phones.
NEW_2 = ("new", "Ann", "Bob", "Cy", "--first", "Ann", "--oath", "--last-words", "--target", "20")
#: Ann fails four sanity checks (one pawn left: the Oath), plays letters that are no word and reaches the target;
#: Bob and Cy each take their final turn (Last Words).
CLI_GAME_2 = [step for word in ("look", "tool", "sod", "nod") for step in (("play", word, "--roll", "1"), ("discard",),
                                                                           ("discard",))]
CLI_GAME_2 += [("play", "abeah", "--roll", "20"), ("play", "riot", "--roll", "15"), ("discard",)]

#: What a phone's page must be, checked on the page as rendered: every visible text at least 7:1 against its
#: background (WCAG's AAA level: readable in sunlight), every control with an accessible name (a screen reader
#: says what it is), tap targets at least 44 px high, nothing wider than the phone (one-handed at 360 px).
AUDIT = r"""
function lum(c) {
  const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
  const p = m[1].split(',').map(Number);
  if (p.length > 3 && p[3] === 0) return null;
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(p[0]) + 0.7152 * f(p[1]) + 0.0722 * f(p[2]);
}
function background(e) {
  for (; e; e = e.parentElement) { const l = lum(getComputedStyle(e).backgroundColor); if (l !== null) return l; }
  return 1;
}
const problems = [], visible = e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden';
let lowest = 21;
for (const e of document.querySelectorAll('body *')) {
  if (!visible(e)) continue;
  const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
  if (own || e.matches('input[type=text], input[type=number]')) {
    const s = getComputedStyle(e); if (parseFloat(s.opacity) < 1) continue;
    const a = lum(s.color), b = background(e);
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    lowest = Math.min(lowest, ratio);
    if (ratio < 7) problems.push('contrast ' + ratio.toFixed(2) + ': ' + e.tagName + ' ' + (e.id || e.className) + ' ' + e.textContent.trim().slice(0, 30));
  }
  if (e.matches('button, input:not([type=hidden]), select, textarea, summary, a[href]')) {
    const r = e.getBoundingClientRect();
    const name = (e.labels && e.labels.length ? e.labels[0].textContent : '') || e.getAttribute('aria-label') ||
      (e.getAttribute('aria-labelledby') ? (document.getElementById(e.getAttribute('aria-labelledby')) || {}).textContent : '') ||
      (e.matches('button, summary, a') ? e.textContent : '') || e.title;
    if (!name || !name.trim()) problems.push('no accessible name: ' + e.outerHTML.slice(0, 80));
    if (e.matches('button, input[type=text], input[type=number], summary') && r.height < 44) problems.push('small target ' + r.height + ': ' + (e.id || e.textContent.trim().slice(0, 20)));
  }
}
if (document.documentElement.scrollWidth > arguments[0]) problems.push('scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + window.innerWidth);
return {problems: problems, lowest: lowest, width: window.innerWidth};
"""


def audit(driver: Any, width: int = 360) -> float:
    """The page passes ``AUDIT`` at ``width``; its lowest contrast ratio."""
    found = driver.execute_script(AUDIT, width)
    assert not found["problems"], found["problems"]
    for element_id in ("word", "bind-word", "letters", "join-code-input"):  # the keyboard for words: capitals,
        box = driver.find_element("id", element_id)                      # no autocorrect, no spelling marks
        if element_id != "join-code-input":
            assert box.get_dom_attribute("autocorrect") == "off" and box.get_dom_attribute("spellcheck") == "false"
        assert box.get_dom_attribute("autocapitalize") == "characters"
    lowest: float = found["lowest"]
    return lowest


def wait(condition: Any, timeout: float = 10.0, why: Any = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within the time allowed: {why() if why else ''}")
        time.sleep(0.05)


def shown(driver: Any, element_id: str) -> bool:
    found: bool = driver.execute_script(
        "const e = document.getElementById(arguments[0]); return Boolean(e) && !e.hidden && e.offsetParent !== null;",
        element_id)
    return found


def text_of(driver: Any, element_id: str) -> str:
    found: str = driver.execute_script("const e = document.getElementById(arguments[0]); return e ? e.innerText : '';",
                                       element_id)
    return found


def without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in ("at", "updated_at", "created_at")}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


class Table:
    """One Chromium session (process and profile) per person at the table: the TV (and, in a second window
    of the same browser, the host's page) on 127.0.0.1, each phone on its own address."""

    def __init__(self, stack: ExitStack, port: int) -> None:
        self.stack, self.port = stack, port
        self.sessions: dict[str, Any] = {}
        self.windows: dict[str, tuple[Any, str]] = {}

    def open(self, who: str, address: str, path: str, session: str | None = None) -> None:
        """Open ``path`` for ``who``: in a new browser session, or in a new window of ``session``'s."""
        if who not in self.windows:
            owner = session or who
            if owner not in self.sessions:
                self.sessions[owner] = self.stack.enter_context(chromium())
                driver = self.sessions[owner]
                self.windows[who] = (driver, driver.current_window_handle)
            else:
                driver = self.sessions[owner]
                driver.switch_to.new_window("window")
                self.windows[who] = (driver, driver.current_window_handle)
        self.on(who).get(f"http://{address}:{self.port}{path}")

    def on(self, who: str) -> Any:
        driver, handle = self.windows[who]
        if driver.current_window_handle != handle:
            driver.switch_to.window(handle)
        return driver

    def fill(self, who: str, element_id: str, value: str) -> None:
        d = self.on(who)
        box = d.find_element("id", element_id)
        box.clear()
        box.send_keys(value)

    def click(self, who: str, element_id: str) -> None:
        self.on(who).find_element("id", element_id).click()

    def until(self, who: str, element_id: str) -> None:
        d = self.on(who)
        wait(lambda: shown(d, element_id))

    def play(self, who: str, word: str, roll: str) -> None:
        self.until(who, "word-form")
        self.fill(who, "word", word)
        wait(lambda: word.upper() in text_of(self.on(who), "verdict"))  # the verdict as they type
        self.click(who, "play-button")
        self.roll(who, roll)

    def roll(self, who: str, value: str) -> None:
        self.until(who, "roll-form")
        self.fill(who, "roll", value)
        self.click(who, "roll-button")
        d = self.on(who)
        wait(lambda: not shown(d, "roll-form"))

    def discard(self, who: str, letters: str) -> None:
        self.until(who, "discard-form")
        if self.on(who).find_element("id", "letters").is_displayed():  # the game's optional rules read the letters
            self.fill(who, "letters", letters)
        else:
            assert not letters, "the discard asks no letters in a game without Spell Binding or Psychotherapy"
        self.on(who).find_element("css selector", "#discard-form button").click()
        d = self.on(who)
        wait(lambda: not shown(d, "discard-form") or bool(text_of(d, "message")))


def test_a_whole_game_from_the_phones_equals_the_cli_game(tmp_path: Path) -> None:
    db = tmp_path / "phones.sqlite3"
    uw(db, *NEW)
    with Board(db, "--players", "--host", "0.0.0.0", port=free_port_everywhere()) as board, ExitStack() as stack:
        host_line = ""
        while "host#" not in host_line:
            host_line = board.proc.stdout.readline() if board.proc.stdout else "host#"
        secret = host_line.strip().rsplit("host#", 1)[1]
        table = Table(stack, board.port)
        table.open("TV", "127.0.0.1", "/?lang=es")
        tv = table.on("TV")
        emulate_screen(tv, 1920, 1080)
        wait(lambda: bool(text_of(tv, "join-code").strip()))
        shoot(tv, "players-tv-es.png", False)
        table.open("TV", "127.0.0.1", "/?lang=en")
        wait(lambda: "Ann's turn" in text_of(tv, "board"))
        shoot(tv, "players-tv.png", False)
        code = text_of(tv, "join-code").strip()
        assert re.fullmatch(r"[A-Z2-9]{6}", code)
        sessions = set()
        for who, address, lang in (("Ann", "127.0.0.2", "en"), ("Bob", "127.0.0.3", "es"), ("Cy", "127.0.0.4", "en")):
            table.open(who, address, f"/join?lang={lang}")
            phone = table.on(who)
            sessions.add(phone.session_id)
            emulate_phone(phone)
            table.until(who, "join-form")
            table.fill(who, "join-code-input", code)
            phone.find_element("css selector", f"input[name=seat][value={who}]").click()
            audit(phone)
            if who in ("Ann", "Bob"):
                shoot(phone, "players-phone-join.png" if lang == "en" else "players-phone-join-es.png")
            phone.find_element("css selector", "#join-form button").click()
            table.until(who, "table")
            assert phone.get_cookies() and all(c["name"] != "uw_seat_1" or c["httpOnly"] for c in phone.get_cookies())
        assert len(sessions | {tv.session_id}) == 4  # four browsers: none sees another's cookie or storage
        table.open("host", "127.0.0.1", f"/host#{secret}", session="TV")

        # A refused word: the verdict says so as Ann types, and the referee refuses it when she insists.
        table.until("Ann", "word-form")
        table.fill("Ann", "word", "qxzv")
        wait(lambda: "not legal" in text_of(table.on("Ann"), "verdict"))
        table.click("Ann", "play-button")
        wait(lambda: "QXZV" in text_of(table.on("Ann"), "message"))
        table.fill("Ann", "word", "look")
        wait(lambda: "LOOK" in text_of(table.on("Ann"), "verdict"))
        audit(table.on("Ann"))
        shoot(table.on("Ann"), "players-phone-turn.png")
        table.play("Ann", "look", "2")                      # fails the sanity check: Ann loses a pawn
        table.until("Bob", "word-form")                     # Bob's turn, in Spanish
        table.fill("Bob", "word", "champ")
        wait(lambda: "CHAMP" in text_of(table.on("Bob"), "verdict"))
        assert "válida" in text_of(table.on("Bob"), "verdict")  # the verdict in the phone's language
        audit(table.on("Bob"))
        shoot(table.on("Bob"), "players-phone-turn-es.png")
        table.discard("Bob", "ttrrddp")
        table.until("Bob", "undo-button")                   # Bob takes his own discard back
        table.click("Bob", "undo-button")
        table.discard("Bob", "oclnusm")                     # Spell Binding: Cy names COLUMN from her phone
        table.until("Cy", "bind-form")
        audit(table.on("Cy"))
        table.fill("Cy", "bind-word", "column")
        table.on("Cy").find_element("css selector", "#bind-form button").click()
        wait(lambda: "COLUMN" in text_of(table.on("Cy"), "message"))
        wait(lambda: "COLUMN" in text_of(table.on("Bob"), "recent"))  # Bob's phone shows Cy's word
        wait(lambda: "Ann" in text_of(table.on("Bob"), "binding-wait") and "Cy" not in text_of(table.on("Bob"),
                                                                                             "binding-wait"))
        assert not shown(table.on("Bob"), "bind-form") and not shown(table.on("Cy"), "bind-form")  # (named)
        table.until("Ann", "pass-button")                    # Ann names no word: the naming closes by itself
        table.click("Ann", "pass-button")
        table.roll("Bob", "15")
        # An overrule: the dictionary refuses CTHULHU (a proper noun); Cy asks the table, the host confirms it.
        table.until("Cy", "word-form")
        table.fill("Cy", "word", "cthulhu")
        table.until("Cy", "ask-allow")
        table.click("Cy", "ask-allow")
        wait(lambda: "host" in text_of(table.on("Cy"), "message").lower())
        d = table.on("host")
        wait(lambda: "CTHULHU" in text_of(d, "host-requests"), why=lambda: text_of(d, "host"))
        d.find_element("css selector", "#host-requests button").click()  # Confirm
        table.roll("Cy", "1")                                # fails: past the target, it scores 0
        wait(lambda: "overrules the dictionary" in text_of(table.on("TV"), "board"))  # the TV: the table allowed it
        table.discard("Ann", "ffwwyyv")                      # Ann has lost a pawn: Psychotherapy
        table.roll("Ann", "20")
        table.discard("Bob", "ttrrddp")
        table.play("Cy", "taps", "3")
        table.until("Ann", "ask-undo")                      # Ann asks the host to take Cy's failed TAPS back
        wait(lambda: "Ann's turn" in text_of(table.on("Ann"), "waiting"))
        table.click("Ann", "ask-undo")
        d = table.on("host")                                 # and the host confirms it on their page
        wait(lambda: "Ann asks to undo" in text_of(d, "host-requests"), why=lambda: text_of(d, "host"))
        d.find_element("css selector", "#host-requests button").click()
        table.play("Cy", "taps", "15")                       # and Cy wins
        tv = table.on("TV")
        wait(lambda: "Cy" in text_of(tv, "board") and "win" in text_of(tv, "board").lower())
        assert not text_of(tv, "join-code")                  # a game that is over takes no players
        for who in ("Ann", "Bob", "Cy"):                     # each phone says what can still be done
            table.until(who, "no-next")                      # (until the board shows the next game)
            said = text_of(table.on(who), "over")          # (Bob's phone speaks Spanish)
            assert "A mistake can still be corrected" in said or "Todavía se puede corregir un error" in said

        # The next game, started at the keyboard while the board runs: the TV shows its own link, QR and code.
        uw(db, *NEW_2)
        wait(lambda: text_of(tv, "join-code").strip() not in ("", code))
        code_2 = text_of(tv, "join-code").strip()
        assert "/games/2/join" in text_of(tv, "board")
        assert tv.find_element("css selector", ".join img").get_dom_attribute("src") == "/games/2/join.svg"
        for who in ("Ann", "Bob", "Cy"):                     # each phone follows the link to the new game
            table.until(who, "next-game")
            phone = table.on(who)
            phone.find_element("css selector", "#next-game a").click()
            table.until(who, "join-form")
            assert "/games/2/join" in phone.current_url
            phone.find_element("css selector", f"input[name=seat][value={who}]").click()
            if who == "Bob":                                  # game 1's code takes no seat in game 2
                table.fill(who, "join-code-input", code)
                phone.find_element("css selector", "#join-form button").click()
                wait(lambda: "no es el código" in text_of(table.on("Bob"), "message"))
            table.fill(who, "join-code-input", code_2)
            phone.find_element("css selector", "#join-form button").click()
            table.until(who, "table")
        host = table.on("host")                              # the host's page moved to game 2 by itself
        wait(lambda: code_2 in text_of(host, "host-join"), timeout=15, why=lambda: text_of(host, "host"))
        # (the page reads the seats every 3 s: it may have moved to game 2 before the phones took their seats)
        wait(lambda: "Ann: taken" in text_of(host, "host-seats"), why=lambda: text_of(host, "host-seats"))
        for word in ("look", "tool", "sod", "nod"):          # Ann fails four sanity checks: one pawn left
            table.play("Ann", word, "1")
            table.discard("Bob", "")
            table.discard("Cy", "")
        table.until("Ann", "word-form")                      # the Oath: letters that are no word, from her phone
        wait(lambda: "Unspellable Oath" in text_of(table.on("Ann"), "waiting"))
        table.fill("Ann", "word", "abeah")
        wait(lambda: "Unspellable Oath lets you play it" in text_of(table.on("Ann"), "verdict"))
        table.click("Ann", "play-button")
        table.roll("Ann", "20")                              # ABEAH takes her to 36: Last Words
        wait(lambda: "Últimas palabras" in text_of(table.on("Bob"), "waiting"))
        assert not shown(table.on("Cy"), "word-form")        # asked only of the player it waits for
        table.play("Bob", "riot", "15")                      # Bob's final turn
        wait(lambda: "Last Words" in text_of(table.on("Cy"), "waiting"))
        table.discard("Cy", "")                              # Cy's final turn, and Ann wins
        wait(lambda: "Ann wins" in text_of(table.on("TV"), "board"))  # (the TV shares its browser with the host)
        table.until("Ann", "over")                           # the end, and a mistake can still be corrected
        assert shown(table.on("Ann"), "no-next") and shown(table.on("Ann"), "ask-undo")
        errors = [e for w in table.windows for e in console_errors(table.on(w))
                  if not ("/api/games/1/actions" in e and "status of 422" in e)     # the refused word
                  and not ("/api/games/2/seats" in e and "status of 403" in e)]  # game 1's code in game 2
        assert not errors, errors
    cli_db = tmp_path / "cli.sqlite3"
    for new, actions in ((NEW, CLI_GAME), (NEW_2, CLI_GAME_2)):
        uw(cli_db, *new)
        for action in actions:
            uw(cli_db, *action)
    for game, winner in (("1", "Cy"), ("2", "Ann")):
        phones = json.loads(uw(db, "export", "--game", game).stdout)
        typed = json.loads(uw(cli_db, "export", "--game", game).stdout)
        assert phones["state"]["winner"] == winner
        assert without_times(phones) == without_times(typed)


def test_a_phone_that_lost_the_network_catches_up_when_it_is_back(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    uw(db, "new", "Cindi", "Paul", "--first", "Cindi")
    with Board(db, "--players") as board, chromium() as driver:
        code, _secret = players_secrets(board)
        emulate_phone(driver)
        driver.get(board.url + "/join")
        wait(lambda: shown(driver, "join-form"))
        driver.find_element("id", "join-code-input").send_keys(code)
        driver.find_element("css selector", "input[name=seat][value=Paul]").click()
        driver.find_element("css selector", "#join-form button").click()
        wait(lambda: "Cindi's turn" in text_of(driver, "waiting"))
        assert not shown(driver, "word-form")
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0,
                                                                    "downloadThroughput": -1, "uploadThroughput": -1})
        uw(db, "play", "look", "--roll", "7")  # Cindi plays at the keyboard while the phone is away
        time.sleep(1.5)
        assert "Cindi's turn" in text_of(driver, "waiting")  # it could not know
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0,
                                                                    "downloadThroughput": -1, "uploadThroughput": -1})
        wait(lambda: shown(driver, "word-form"), timeout=15)  # the stream reconnects: the phone reads the game again
        assert "Paul's turn" in text_of(driver, "waiting")
