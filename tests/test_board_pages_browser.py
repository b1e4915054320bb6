"""The board's pages as a person uses them, measured in headless Chromium: the hosted start form's labels sit above
their boxes at every width; on a phone (390x844) the feedback line appears right under the control that caused it
and stays in view above a 300 px on-screen keyboard; "Other corrections" looks like a control to tap."""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_support import Board, chromium, console_errors, emulate_phone, emulate_screen, players_secrets
from cli_support import run

pytestmark = pytest.mark.slow

KEYBOARD = 300  # px: a phone's on-screen keyboard, which shortens the page's viewport while a box has focus

BOX = "const r = arguments[0].getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};"


def wait(condition: Any, timeout: float = 15.0, why: Any = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within the time allowed: {why() if why else ''}")
        time.sleep(0.05)


def box(driver: Any, element: Any) -> dict[str, float]:
    found: dict[str, float] = driver.execute_script(BOX, element)
    return found


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Board]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("UW_BOARD_HOST_SECRET", "a-host-secret-of-the-pages-test-0123456789abc")
        with Board(tmp_path_factory.mktemp("hosted") / "games.sqlite3", "--hosted") as board:
            yield board


@pytest.mark.parametrize("width", [390, 800, 1280, 1920])
def test_the_start_forms_labels_sit_above_their_boxes_at_every_width(browser: Any, hosted: Board, width: int) -> None:
    emulate_screen(browser, width, 1000)
    browser.get(hosted.url + "/")
    labels = browser.find_elements("css selector", "#start-form label[for]")
    assert len(labels) >= 8  # the players' names, who won the roll-off, the target, the size
    for label in labels:
        field = browser.find_element("id", label.get_dom_attribute("for"))
        above, below = box(browser, label), box(browser, field)
        assert above["bottom"] <= below["top"] + 1, (
            f"{label.text!r} at {width} px is not above its box: {above} {below}")
        assert abs(above["left"] - below["left"]) < 30, f"{label.text!r} at {width} px: {above} {below}"
    assert console_errors(browser) == []


@pytest.fixture(scope="module")
def phone_board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Board, str]]:
    db: Path = tmp_path_factory.mktemp("phone") / "games.sqlite3"
    run(db, "new", "Ann", "Bob", "--first", "Ann", check=True)
    with Board(db, "--players") as board:
        code, _host = players_secrets(board)
        yield board, code


def seated(driver: Any, board: Board, code: str, seat: str) -> None:
    """A phone at 390x844 that took ``seat``."""
    emulate_phone(driver, 390, 844)
    driver.get(board.url + "/games/1/join")
    wait(lambda: driver.find_element("id", "join-form").is_displayed() or driver.find_element("id", "table")
         .is_displayed())
    if driver.find_element("id", "join-form").is_displayed():
        driver.find_element("id", "join-code-input").send_keys(code)
        driver.find_element("css selector", f"input[name=seat][value={seat}]").click()
        driver.find_element("css selector", "#join-form button[type=submit]").click()
    wait(lambda: driver.find_element("id", "table").is_displayed(), why=lambda: driver.page_source[-1500:])


def test_the_feedback_line_is_under_the_control_and_above_the_keyboard(phone_board: tuple[Board, str]) -> None:
    board, code = phone_board
    with chromium() as phone:
        seated(phone, board, code, "Ann")
        wait(lambda: phone.find_element("id", "word-form").is_displayed())
        word = phone.find_element("id", "word")
        word.click()
        # The keyboard opens: the page's viewport is 300 px shorter while the box has focus (as on Android).
        emulate_phone(phone, 390, 844 - KEYBOARD)
        word.send_keys("zzqx\n")  # not a word: refused, and said
        message = phone.find_element("id", "message")
        wait(lambda: message.text.strip() != "", why=lambda: phone.page_source[-1500:])
        form, said = box(phone, phone.find_element("id", "word-form")), box(phone, message)
        assert form["bottom"] - 1 <= said["top"] <= form["bottom"] + 40, f"not right under the form: {form} {said}"
        assert said["top"] >= 0 and said["bottom"] <= 844 - KEYBOARD, f"hidden by the keyboard: {said}"
        # An action that passes the turn on: its notes stay where the form was, in view.
        word.clear()
        word.send_keys("look\n")
        wait(lambda: phone.find_element("id", "roll-form").is_displayed())
        wait(lambda: "LOOK" in message.text, why=lambda: message.text)
        roll, said = box(phone, phone.find_element("id", "roll-form")), box(phone, message)
        assert said["top"] >= 0 and said["bottom"] <= 844 - KEYBOARD and said["bottom"] <= roll["top"] + 1, (said, roll)
        assert [e for e in console_errors(phone) if "status of 422" not in e] == []  # (the refusal's own answer)


def test_other_corrections_looks_tappable(phone_board: tuple[Board, str]) -> None:
    board, code = phone_board
    with chromium() as phone:
        seated(phone, board, code, "Bob")
        summary = phone.find_element("css selector", ".phone-more summary")
        style = phone.execute_script(
            "const s = getComputedStyle(arguments[0]), b = getComputedStyle(arguments[0], '::before');"
            "const page = getComputedStyle(document.body).backgroundColor;"
            "return {border: parseFloat(s.borderTopWidth), background: s.backgroundColor, page: page,"
            " cursor: s.cursor, height: arguments[0].getBoundingClientRect().height, arrow: b.content,"
            " width: arguments[0].getBoundingClientRect().width};", summary)
        assert style["border"] >= 2 and style["background"] not in (style["page"], "rgba(0, 0, 0, 0)"), style
        assert style["cursor"] == "pointer" and style["height"] >= 48 and style["arrow"] == '"▸"', style
        assert style["width"] >= 300  # a bar across the page, as the buttons are
        summary.click()
        wait(lambda: phone.find_element("id", "amend-form").is_displayed())
        arrow = phone.execute_script("return getComputedStyle(arguments[0], '::before').content;", summary)
        assert arrow == '"▾"'
