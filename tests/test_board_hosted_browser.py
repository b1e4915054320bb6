"""A hosted table in real browsers: headless Chromium (Debian's, through selenium) against ``uw-referee board
--hosted`` served by gunicorn on a port of its own. The host starts a table from the form, the TV opens its board
link, a phone opens its join link (the code filled in), takes a seat and plays the winning turn; the TV follows
live (its stream carries the code's cookie), both show the export link, and a browser that was never given the
code sees the same 404 as for a game that does not exist. On both backends."""
from __future__ import annotations

import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from typing import Any

import pytest
from board_support import Board, chromium, console_errors, emulate_phone
from postgres_support import Backend

pytestmark = pytest.mark.slow


def wait(condition: Any, timeout: float = 15.0, why: Any = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within the time allowed: {why() if why else ''}")
        time.sleep(0.05)


def visible(driver: Any, element_id: str) -> bool:
    found: bool = driver.execute_script(
        "const e = document.getElementById(arguments[0]); return Boolean(e) && !e.hidden && e.offsetParent !== null;",
        element_id)
    return found


def port_in_range() -> int:
    """A free port among the ones this test may use (8650-8699)."""
    import socket

    for port in range(8660, 8700):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port in 8660-8699")


def test_a_table_started_from_the_form_is_joined_and_played_from_a_phone(backend: Backend) -> None:
    with ExitStack() as stack:
        board = stack.enter_context(Board(backend.url, "--hosted", "--keep", "3", port=port_in_range()))
        host = stack.enter_context(chromium())
        host.get(board.url + "/")
        host.find_element("id", "player-0").send_keys("Ann")
        host.find_element("id", "player-1").send_keys("Bob")
        host.find_element("css selector", "input[name=dice][value=physical]").click()
        host.find_element("id", "first").send_keys("Ann")
        target = host.find_element("id", "target")
        target.clear()
        target.send_keys("5")
        host.find_element("css selector", "#start-form button[type=submit]").click()
        wait(lambda: visible(host, "table-code"), why=lambda: host.page_source[-2000:])
        code = host.find_element("id", "table-code").text
        board_link = host.find_element("id", "table-board").get_dom_attribute("href")
        join_link = host.find_element("id", "table-join").get_dom_attribute("href")
        assert board_link.endswith(f"/games/1?code={code}") and join_link.endswith(f"/games/1/join?code={code}")
        assert "kept for 3 days" in host.page_source

        tv = stack.enter_context(chromium(1920, 1080))
        tv.get(board_link)
        wait(lambda: tv.find_element("id", "live").get_attribute("data-state") == "live",
             why=lambda: tv.find_element("id", "live").get_attribute("data-state"))
        assert "Ann" in tv.page_source and code in tv.find_element("id", "join-code").text

        phone = stack.enter_context(chromium())
        emulate_phone(phone)
        phone.get(join_link)
        assert phone.find_element("id", "join-code-input").get_attribute("value") == code  # filled in
        phone.find_element("css selector", "input[name=seat][value=Ann]").click()
        phone.find_element("css selector", "#join-form button").click()
        wait(lambda: visible(phone, "word-form"), why=lambda: phone.find_element("id", "message").text)
        phone.find_element("id", "word").send_keys("taps")
        phone.find_element("id", "play-button").click()
        wait(lambda: visible(phone, "roll-form"), why=lambda: phone.find_element("id", "message").text)
        phone.find_element("id", "roll").send_keys("15")
        phone.find_element("id", "roll-button").click()
        wait(lambda: visible(phone, "next-game"), why=lambda: phone.find_element("id", "message").text)
        export = phone.find_element("css selector", "#next-game a").get_dom_attribute("href")
        assert export == "/api/games/1/export"
        wait(lambda: "wins" in tv.find_element("id", "waiting").text,  # the TV followed, without a reload
             why=lambda: tv.find_element("id", "waiting").text)
        assert tv.find_elements("css selector", ".export a")
        downloaded = phone.execute_async_script(
            "const done = arguments[0]; fetch('/api/games/1/export').then(r => r.json()).then(done);")
        assert downloaded.get("game") == 1 and downloaded["state"]["winner"] == "Ann", downloaded
        assert console_errors(phone) == [] and console_errors(tv) == []

        stranger = stack.enter_context(chromium())
        stranger.get(board.url + "/games/1")
        refused = stranger.page_source
        stranger.get(board.url + "/games/7")
        assert "There is no game 1 here, or this link lacks its join code." in refused
        assert stranger.page_source.replace("game 7", "game 1") == refused
        with pytest.raises(urllib.error.HTTPError) as listing:
            urllib.request.urlopen(board.url + "/api/games", timeout=5)
        assert listing.value.code == 404
