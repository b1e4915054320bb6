"""deploy/ on the open internet (issue 35, point 7), through real nginx: the word service's cache keyed by the
negotiated language (a made-up Accept-Language bypassed it at will), the rack search and the hosted board's
table starts, joins and players' API limited per address by nginx's zones (problem+json 429s), and an error log
that never records a join code when a replica fails. ``tests/setup_nginx.sh`` installs nginx; without it they
skip, with one line."""
from __future__ import annotations

import os
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_support import Board
from test_deploy import NGINX, NO_NGINX, Deployment, Replica, deployment, free_port, wait_until_up

ROOT = Path(__file__).resolve().parent.parent
HOSTED_CONF = ROOT / "deploy" / "hosted-nginx.conf"
SECRET = "a-host-secret-for-the-deploy-attack-tests-0123456789"

pytestmark = pytest.mark.slow


def ask(url: str, method: str = "GET", body: bytes | None = None,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.fixture(scope="module")
def words() -> Iterator[Deployment]:
    with tempfile.TemporaryDirectory(prefix="uw-nginx-attacks-") as prefix:
        yield from deployment(Path(prefix))


def test_a_made_up_accept_language_does_not_bypass_the_word_cache(words: Deployment) -> None:
    """The cache kept one copy per raw Accept-Language (the replicas' Vary): any client missed it at will. Now the
    key is the negotiated language: after the first, made-up headers are hits, and Spanish is its own entry."""
    url = f"{words.base}/v1/words/zygote"
    seen = [ask(url, headers={"Accept-Language": f"en-x-{i}, fr;q=0.{i}"})[1]["X-Cache-Status"] for i in range(6)]
    assert seen[0] == "MISS" and seen[1:] == ["HIT"] * 5, seen
    spanish = [ask(url, headers={"Accept-Language": f"es-x-{i}"}) for i in range(3)]
    assert [a[1]["X-Cache-Status"] for a in spanish] == ["MISS", "HIT", "HIT"]
    assert {a[1]["Content-Language"] for a in spanish} == {"es"}
    assert ask(url)[1]["Content-Language"] == "en"


def until_refused(request: Any, most: int, refusals: int = 2) -> list[tuple[int, float, Any]]:
    """``request()`` (its status and body) again and again, at most ``most`` times, until ``refusals`` 429s: each
    answer's status, seconds and body."""
    import time

    answers: list[tuple[int, float, Any]] = []
    while len(answers) < most and sum(a[0] == 429 for a in answers) < refusals:
        began = time.monotonic()
        status, body = request()
        answers.append((status, time.monotonic() - began, body))
    return answers


def test_the_rack_search_is_limited_per_address(words: Deployment) -> None:
    """Each rack search missing the cache costs up to 126 ms of CPU: one address gets a burst of 20 and 5 a second,
    then nginx's 429 in problem+json, in the negotiated language. A refusal takes seconds to send (``limit_rate``):
    answered at once, a flood that asked again at once made 120,000 of them a second and took both cores."""
    import itertools

    racks = (f"/v1/racks/{'ABCDEFGHIJ'[i % 10]}{'KLMNOPRSTU'[i // 10 % 10]}E" for i in itertools.count())
    answers = until_refused(lambda: (lambda a: (a[0], a))(ask(words.base + next(racks))), 40)
    statuses = [a[0] for a in answers]
    assert 429 in statuses and 429 not in statuses[:20], statuses
    refused = next(a[2] for a in answers if a[0] == 429)
    assert refused[1]["Content-Type"].startswith("application/problem+json") and b'"status":429' in refused[2]
    assert all(seconds >= 1.5 for status, seconds, _a in answers if status == 429), answers
    spanish = until_refused(lambda: (lambda a: (a[0], a))(ask(words.base + next(racks),
                                                              headers={"Accept-Language": "es"})), 40, 1)
    assert spanish[-1][0] == 429 and b"Demasiadas" in spanish[-1][2][2]


class HostedSite:
    """nginx with deploy/hosted-nginx.conf in front of one hosted board (SQLite) on the first replica's place; the
    second replica's place and the word service's are ports nobody listens on (a replica down)."""

    def __init__(self, prefix: Path, board: Board) -> None:
        self.prefix, self.port = prefix, free_port()
        conf = HOSTED_CONF.read_text()
        dead = free_port()
        for default, port in (("8101", board.port), ("8102", dead), ("8001", dead), ("8002", dead)):
            assert f"server 127.0.0.1:{default}" in conf
            conf = conf.replace(f"server 127.0.0.1:{default}", f"server 127.0.0.1:{port}")
        conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{self.port};")
        (prefix / "tmp").mkdir(exist_ok=True)
        (prefix / "nginx.conf").write_text(conf)
        assert NGINX is not None
        directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
        self.process = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", directives],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_up(f"{self.base}/static/board.css", self.process, "nginx", prefix / "error.log")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HostedSite]:
    if NGINX is None:
        pytest.skip(NO_NGINX)
    monkeypatch.setenv("UW_BOARD_HOST_SECRET", SECRET)
    monkeypatch.setenv("UW_BOARD_PROXIES", "127.0.0.1")
    with Board(tmp_path / "g.sqlite3", "--hosted") as board:
        running = HostedSite(tmp_path, board)
        try:
            yield running
        finally:
            running.stop()


def _start(site: HostedSite) -> tuple[int, Any]:
    import json

    status, _headers, body = ask(f"{site.base}/api/tables", "POST",
                                 json.dumps({"players": ["Ann", "Bob"], "dice": "virtual"}).encode())
    return status, json.loads(body)


def test_table_starts_joins_and_the_api_are_limited_by_nginx(site: HostedSite) -> None:
    """One address through nginx: 6 table starts at once, then nginx's 429 (the replicas' own limit, 10 in 10
    minutes, would have let 10 through); the join route and the API's reads likewise, each in problem+json, and
    each refusal sent slowly (seconds: a flood that asks again at once waits that long)."""
    started = until_refused(lambda: _start(site), 12)
    assert [s for s, _t, _b in started] == [201] * 6 + [429, 429]
    assert all(b["type"] == "urn:uw-referee:rate-limit" and t >= 1.5 for s, t, b in started if s == 429), started
    table = started[0][2]
    joins = until_refused(lambda: ask(f"{site.base}/games/{table['game']}/join?code={table['code']}")[::2], 40)
    assert joins[-1][0] == 429 and 429 not in [s for s, _t, _b in joins[:20]], [s for s, _t, _b in joins]
    reads = until_refused(lambda: ask(f"{site.base}/api/games/{table['game']}?code={table['code']}")[::2], 200, 1)
    assert reads[-1][0] == 429 and reads[-1][1] >= 1.5


def test_a_phone_typing_through_nginx_is_never_cut(site: HostedSite) -> None:
    """The zones must not stop a real phone: Chromium as a phone, through nginx, takes a seat and its player types
    words for 20 s, a key every 0.17 s (just over the page's 150 ms pause, so each key asks for a verdict: the most
    a typist asks), clears them and types again, then plays one; the TV's page is open beside it. nginx's access
    log has no 429, and the phone read each verdict it asked for."""
    import json
    import time

    from board_support import chromium, emulate_phone

    status, _headers, body = ask(f"{site.base}/api/tables", "POST", json.dumps(
        {"players": ["Ann", "Bob"], "dice": "physical", "first": "Ann"}).encode())
    assert status == 201
    table = json.loads(body)
    join = f"{site.base}/games/{table['game']}/join?code={table['code']}"
    with chromium() as phone, chromium(1920, 1080) as tv:
        tv.get(f"{site.base}/games/{table['game']}?code={table['code']}")
        emulate_phone(phone)
        phone.get(join)
        phone.find_element("css selector", "input[name=seat][value=Ann]").click()
        phone.find_element("css selector", "#join-form button").click()
        deadline = time.monotonic() + 15
        while not phone.find_element("id", "word-form").is_displayed():
            assert time.monotonic() < deadline, phone.find_element("id", "message").text
            time.sleep(0.05)
        box, words, typed = phone.find_element("id", "word"), ["TAPESTRY", "QUIXOTIC", "RHYTHMS"], 0
        end = time.monotonic() + 20
        while time.monotonic() < end:
            for letter in words[typed % 3]:
                box.send_keys(letter)
                time.sleep(0.17)
            typed += 1
            time.sleep(0.3)  # the last verdict shown
            box.clear()
        box.send_keys("taps")
        time.sleep(0.3)
        phone.find_element("id", "play-button").click()
        deadline = time.monotonic() + 15
        while "TAPS" not in tv.page_source:
            assert time.monotonic() < deadline, "the TV never showed the play"
            time.sleep(0.1)
    lines = (site.prefix / "access.log").read_text().splitlines()
    verdicts = [line for line in lines if "/verdict" in line]
    assert [line for line in lines if '" 429 ' in line] == []
    assert len(verdicts) >= typed * 5, (len(verdicts), typed)  # about one a key: the phone asked at its fastest


def test_the_error_log_never_records_a_join_code(site: HostedSite) -> None:
    """A replica down: nginx logged each failed try with the client's request line, the table's ?code= included.
    Its error log now records critical errors only; the access log says which replicas were tried, without the
    query."""
    for game in range(1, 13):  # some of them hash to the replica that is down: nginx tries it, then the other
        ask(f"{site.base}/games/{game}?code=SECRETCODE{game}")
    access = (site.prefix / "access.log").read_text()
    assert "SECRETCODE" not in access and ", " in access  # a request that met the dead replica, then the live one
    assert "SECRETCODE" not in (site.prefix / "error.log").read_text()


def test_the_deploy_configurations_are_valid(tmp_path: Path) -> None:
    """nginx accepts both configurations as shipped."""
    if NGINX is None:
        pytest.skip(NO_NGINX)
    (tmp_path / "tmp").mkdir()
    for conf in ("nginx.conf", "hosted-nginx.conf"):
        done = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(ROOT / "deploy" / conf)],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


__all__ = ["HostedSite", "Replica"]
