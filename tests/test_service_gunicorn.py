"""The service's gunicorn logger: its cheaper access lines are byte for byte gunicorn's own."""
from __future__ import annotations

import datetime
import logging
from types import SimpleNamespace
from typing import Any

import gunicorn.glogging
import pytest
from gunicorn.config import Config

from service import gunicorn_conf


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def logger(cls: type, access_log_format: str = gunicorn_conf.access_log_format) -> tuple[Any, Lines]:
    """A logger of ``cls`` whose access lines are kept (gunicorn's loggers share one logging.Logger:
    use one at a time)."""
    cfg = Config()
    cfg.set("accesslog", "-")
    cfg.set("access_log_format", access_log_format)
    log = cls(cfg)
    lines = Lines()
    log.access_log.handlers = [lines]
    return log, lines


def environ(uri: str = "/v1/words/jazz", **extra: Any) -> dict[str, Any]:
    path = uri.split("?", 1)[0]
    return {"REQUEST_METHOD": "GET", "RAW_URI": uri, "PATH_INFO": path, "QUERY_STRING": uri.partition("?")[2],
            "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "HTTP_USER_AGENT": "wrk", **extra}


ANSWERS = [
    (environ(), "200 OK", 312, 1234),
    (environ(), "304 NOT MODIFIED", 0, 999),
    (environ("/v1/words/t%22ps?level=%2260"), "400 BAD REQUEST", 180, 2_500_000),
    (environ('/v1/words/"quoted"'), "404 NOT FOUND", None, 0),
    (environ("/v1/racks/taps?limit=5%25", REQUEST_METHOD="HEAD", SERVER_PROTOCOL="HTTP/1.0"), "200 OK", 0, 61_000),
    ({k: v for k, v in environ().items() if k != "REMOTE_ADDR"}, "503 SERVICE UNAVAILABLE", 200, 5),
    (environ(REMOTE_ADDR='"odd"'), 200, 10, 5),
]


@pytest.mark.parametrize("env, status, sent, micros", ANSWERS)
def test_access_lines_are_gunicorns_own(env: dict[str, Any], status: Any, sent: int | None, micros: int) -> None:
    resp = SimpleNamespace(status=status, sent=sent, headers=[("Content-Type", "application/json")])
    req = SimpleNamespace(headers=[("HOST", "x"), ("USER-AGENT", "wrk")])
    took = datetime.timedelta(microseconds=micros)
    ours, our_lines = logger(gunicorn_conf.logger_class)
    ours.access(resp, req, env, took)
    theirs, their_lines = logger(gunicorn.glogging.Logger)
    theirs.access(resp, req, env, took)
    assert our_lines.lines == their_lines.lines and len(our_lines.lines) == 1


def test_healthz_is_not_logged_and_another_format_is_gunicorns() -> None:
    resp = SimpleNamespace(status="200 OK", sent=15, headers=[])
    req = SimpleNamespace(headers=[])
    took = datetime.timedelta(microseconds=10)
    ours, lines = logger(gunicorn_conf.logger_class)
    ours.access(resp, req, environ("/healthz"), took)
    assert lines.lines == []
    own_format = '%(h)s %(a)s "%({user-agent}i)s" %(s)s'
    ours, lines = logger(gunicorn_conf.logger_class, own_format)
    ours.access(resp, req, environ(), took)
    theirs, their_lines = logger(gunicorn.glogging.Logger, own_format)
    theirs.access(resp, req, environ(), took)
    assert lines.lines == their_lines.lines == ['127.0.0.1 wrk "-" 200']
