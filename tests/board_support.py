"""What the board's browser tests, its benchmark and its screenshot script share: a board served by
the real command (gunicorn) on a free port, the CLI in another process, and headless Chromium."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

SETUP_HINT = "the browser tests need Debian's chromium and chromedriver: run 'bash tests/setup_browser.sh'"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until(ready: Callable[[], bool], what: str, limit_s: float = 30.0) -> None:
    """Return once ``ready()`` is true: a wait for a state, not a claim about speed. ``limit_s`` only keeps a broken
    program from hanging the run; past it the test fails, naming ``what`` it waited for."""
    deadline = time.monotonic() + limit_s
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {limit_s:g} s for {what}")
        time.sleep(0.02)


def client_for(path: Path | str, players: bool = False, **config: Any) -> Any:
    """A Flask test client of the board on ``path`` (a file or an address), following the most recent game; with
    ``players`` the phones may play; ``config``: any other setting (``BOARD_HOST_SECRET``...)."""
    from referee.board.app import create_app

    return create_app({"BOARD_DB": str(path), "BOARD_GAME": None, "TESTING": True, "BOARD_PLAYERS": players,
                       **config}).test_client()


def uw(db: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``uw-referee --db DB ARGS`` in its own process, as a player at the table would run it."""
    done = subprocess.run([sys.executable, "-m", "referee.cli", "--db", str(db), *args],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"uw-referee {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done


#: The games of the layout screenshots and their test: 3, 6 and 8 players, one with a long name.
LAYOUT_PLAYERS = {
    3: ["Cindi", "Bartholomew Featherstonehaugh", "Sue"],
    6: ["Cindi", "Bartholomew Featherstonehaugh", "Sue", "Ana", "Paul", "Maximiliano"],
    8: ["Cindi", "Bartholomew Featherstonehaugh", "Sue", "Ana", "Paul", "Maximiliano", "Jo", "Wilhelmina Oyelaran"],
}
LAYOUT_PLAYS = [("look", "7"), ("champ", "3"), ("taps", "15"), (None, None), ("zebra", "12"), ("quilt", "2"),
                ("columns", "6"), ("river", "14"), ("orange", "18"), ("mouse", "9"), ("dragon", "17")]


def layout_game(db: Path, players: list[str]) -> None:
    """A game a few turns in (every player has played or discarded once or more), as the screenshots show."""
    deck = ["--deck", "double"] if len(players) > 6 else []
    uw(db, "new", *players, "--first", players[0], "--oath", "--last-words", *deck)
    for word, roll in LAYOUT_PLAYS[:max(len(players) + 2, 7)]:
        if word is None:
            uw(db, "discard")
        else:
            assert roll is not None
            uw(db, "play", word, "--roll", roll)


class Board:
    """``uw-referee board`` running in its own session (so a Ctrl-C reaches its whole process group)."""

    def __init__(self, db: Path | str, *extra: str, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = db
        env = {**os.environ, "UW_REFEREE_DB": str(db)}
        self.proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "board", "--port", str(self.port),
                                      "--db", str(db), *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                     text=True, env=env, start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the board did not start: {self.proc.communicate()}")
            try:
                urllib.request.urlopen(self.url + "/static/board.css", timeout=2).read()
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.1)
        self.stop()
        raise AssertionError("the board did not answer within 30 s")

    def pids(self) -> list[int]:
        """The master and its worker processes."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        kids = [int(p) for p in children.read_text().split()] if children.exists() else []
        return [self.proc.pid, *kids]

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str, str]:
        """Stop it as Ctrl-C does (SIGINT to the process group); its exit status and output."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
        try:
            out, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            out, err = self.proc.communicate()
        return self.proc.returncode, out, err

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def browser_programs() -> tuple[str, str] | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


@contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """Headless Chromium driven by selenium through Debian's chromedriver (nothing is downloaded)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    programs = browser_programs()
    if programs is None:
        raise RuntimeError(SETUP_HINT)
    profile = tempfile.mkdtemp(prefix="uw-board-chromium-")
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.binary_location = programs[0]
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=programs[1]))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def emulate_phone(driver: Any, width: int = 360, height: int = 740) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})


def emulate_screen(driver: Any, width: int, height: int) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def players_secrets(board: Board) -> tuple[str, str]:
    """The current game's join code and the host secret, as ``board --players`` prints them on its terminal."""
    import re

    code = secret = ""
    while not (code and secret):
        line = board.proc.stdout.readline() if board.proc.stdout else ""
        if not line:
            raise AssertionError("the board printed no join code and host link")
        found = re.search(r"with the code ([A-Z2-9]{6})\b", line)
        code = found.group(1) if found else code
        secret = line.strip().rsplit("host#", 1)[1] if "host#" in line else secret
    return code, secret


def free_port_everywhere() -> int:
    """A port free on every address (0.0.0.0), for a board served with ``--host 0.0.0.0``: a port free on
    127.0.0.1 alone may be held on another loopback address (another test's client connections)."""
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        port: int = s.getsockname()[1]
        return port


def game_code(db: Path | str, secret: str, game: int) -> str:
    """The join code of ``game`` in ``db`` under ``secret``: made from its number and its salt, kept with it."""
    from referee.board.seats import join_code

    return join_code(secret, game, _salt(db, game))


def game_host_token(db: Path | str, secret: str, game: int) -> str:
    """The host token of ``game`` in ``db`` on a hosted board with ``secret``."""
    from referee.board.seats import table_token

    return table_token(secret, game, _salt(db, game))


def _salt(db: Path | str, game: int) -> str:
    from referee.store_pg import close_pools, open_store
    from referee.store_seats import SeatBook

    store = open_store(str(db), read_only=True)
    try:
        salt = SeatBook(store).salt(game)
    finally:
        store.close()
        close_pools()  # no connection of the test's kept open: a test may restart the server next
    assert salt is not None, f"no game {game} in {db}"
    return salt
