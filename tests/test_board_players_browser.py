"""A whole game played from phones: headless Chromium (Debian's, through selenium) against ``uw-referee board
--players --host 0.0.0.0``. Four browser contexts: the TV (with the host's page) and three phones, each on its
own loopback address (127.0.0.1 to .4), so each has its own cookies, storage and address for the rate limits.
The game's export then equals the same game played with the CLI."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from board_support import Board, chromium, console_errors, emulate_phone, uw

pytestmark = pytest.mark.slow

NEW = ("new", "Ann", "Bob", "Cy", "--first", "Ann", "--spell-binding", "--psychotherapy", "--target", "10")
#: The same game at the keyboard: every action the phones take below, in the same order.
CLI_GAME = [("play", "look", "--roll", "2"), ("discard", "ttrrddp"), ("undo",), ("discard", "oclnusm"),
            ("bind", "column", "--by", "Cy"), ("bind", "--done"), ("roll", "15"), ("discard", "qxzvjbw"),
            ("discard", "ffhhgyy"), ("roll", "20"), ("discard", "ttrrddp"), ("play", "taps", "--roll", "3"),
            ("undo",), ("play", "taps", "--roll", "15")]


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
    """One browser, one window per context: the TV and host on 127.0.0.1, each phone on its own address."""

    def __init__(self, driver: Any, port: int) -> None:
        self.driver, self.port = driver, port
        self.windows: dict[str, str] = {"TV": driver.current_window_handle}

    def open(self, who: str, address: str, path: str) -> None:
        if who not in self.windows:
            self.driver.switch_to.new_window("window")
            self.windows[who] = self.driver.current_window_handle
        self.on(who)
        self.driver.get(f"http://{address}:{self.port}{path}")

    def on(self, who: str) -> Any:
        self.driver.switch_to.window(self.windows[who])
        return self.driver

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
        self.fill(who, "letters", letters)
        self.on(who).find_element("css selector", "#discard-form button").click()
        d = self.on(who)
        wait(lambda: not shown(d, "discard-form") or bool(text_of(d, "message")))


def test_a_whole_game_from_the_phones_equals_the_cli_game(tmp_path: Path) -> None:
    db = tmp_path / "phones.sqlite3"
    uw(db, *NEW)
    with Board(db, "--players", "--host", "0.0.0.0") as board, chromium() as driver:
        host_line = ""
        while "host#" not in host_line:
            host_line = board.proc.stdout.readline() if board.proc.stdout else "host#"
        secret = host_line.strip().rsplit("host#", 1)[1]
        table = Table(driver, board.port)
        table.open("TV", "127.0.0.1", "/")
        code = text_of(driver, "join-code").strip()
        assert re.fullmatch(r"[A-Z2-9]{6}", code)
        for who, address in (("Ann", "127.0.0.2"), ("Bob", "127.0.0.3"), ("Cy", "127.0.0.4")):
            table.open(who, address, "/join")
            emulate_phone(table.on(who))
            table.until(who, "join-form")
            table.fill(who, "join-code-input", code)
            table.on(who).find_element("css selector", f"input[name=seat][value={who}]").click()
            table.on(who).find_element("css selector", "#join-form button").click()
            table.until(who, "table")
        table.open("host", "127.0.0.1", f"/host#{secret}")

        # A refused word: the verdict says so as Ann types, and the referee refuses it when she insists.
        table.until("Ann", "word-form")
        table.fill("Ann", "word", "qxzv")
        wait(lambda: "not legal" in text_of(table.on("Ann"), "verdict"))
        table.click("Ann", "play-button")
        wait(lambda: "QXZV" in text_of(table.on("Ann"), "message"))
        table.play("Ann", "look", "2")                      # fails the sanity check: Ann loses a pawn
        table.discard("Bob", "ttrrddp")
        table.until("Bob", "undo-button")                   # Bob takes his own discard back
        table.click("Bob", "undo-button")
        table.discard("Bob", "oclnusm")                     # Spell Binding: Cy names COLUMN from her phone
        table.until("Cy", "bind-form")
        table.fill("Cy", "bind-word", "column")
        table.on("Cy").find_element("css selector", "#bind-form button").click()
        wait(lambda: "COLUMN" in text_of(table.on("Cy"), "message"))
        table.until("Bob", "close-button")
        table.click("Bob", "close-button")
        table.roll("Bob", "15")
        table.discard("Cy", "qxzvjbw")
        table.discard("Ann", "ffhhgyy")                      # Ann has lost a pawn: Psychotherapy
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
        errors = [e for w in table.windows for e in console_errors(table.on(w))
                  if "/api/games/1/actions" not in e or "status of 422" not in e]  # the refused word
        assert not errors, errors
    phones = json.loads(uw(db, "export").stdout)
    cli_db = tmp_path / "cli.sqlite3"
    uw(cli_db, *NEW)
    for action in CLI_GAME:
        uw(cli_db, *action)
    typed = json.loads(uw(cli_db, "export").stdout)
    assert phones["state"]["winner"] == "Cy"
    assert without_times(phones) == without_times(typed)


def test_a_phone_that_lost_the_network_catches_up_when_it_is_back(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    uw(db, "new", "Cindi", "Paul", "--first", "Cindi")
    with Board(db, "--players") as board, chromium() as driver:
        code = ""
        while not code:
            line = board.proc.stdout.readline() if board.proc.stdout else ""
            if "with the code" in line:
                code = line.rsplit(" ", 1)[1].strip().rstrip(".")
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
