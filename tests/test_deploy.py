"""deploy/nginx.conf: valid for nginx, and in step with the service's own limits."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from service import gunicorn_conf
from service.core import BODY_SECONDS, MAX_BODY_BYTES

CONF = Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf"


def test_limits_match_the_service() -> None:
    text = CONF.read_text()
    assert f"client_max_body_size {MAX_BODY_BYTES // 1024}k;" in text
    assert f"client_header_timeout {gunicorn_conf.keepalive}s;" in text
    assert f"client_body_timeout {BODY_SECONDS:g}s;" in text
    assert re.search(r"proxy_cache_path .*keys_zone=uw_words", text) and "proxy_cache uw_words;" in text


def test_nginx_accepts_the_configuration(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light); benchmarks/bench_service.py --nginx runs it")
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(CONF)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
