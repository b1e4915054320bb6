#!/usr/bin/env bash
# Smoke test of the real server: start the Procfile's web command (gunicorn) on a free port,
# wait for /healthz, then check a word, a batch, a rack and errors over real HTTP, and stop it.
# Run from anywhere; uses .venv/bin when it exists. Exits non-zero on any failure.
set -euo pipefail

cd "$(dirname "$0")/.."
if [ -d .venv/bin ]; then PATH="$PWD/.venv/bin:$PATH"; fi
export PATH

free_port() {
    # Bound on 0.0.0.0, the address the Procfile listens on: a port free only on 127.0.0.1 may be taken there.
    python -c 'import socket; s = socket.socket(); s.bind(("0.0.0.0", 0)); print(s.getsockname()[1]); s.close()'
}
WEB="$(sed -n 's/^web: *//p' Procfile)"
[ -n "$WEB" ] || { echo "smoke: no web: line in Procfile" >&2; exit 1; }
LOG="$(mktemp)"
SERVER=""

cleanup() {
    if [ -n "$SERVER" ] && kill -0 "$SERVER" 2>/dev/null; then
        kill -TERM "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
    fi
    rm -f "$LOG"
}
trap cleanup EXIT

# Another program may take the chosen port between the choice and gunicorn's bind (the machine is shared):
# then a new port is chosen, three times at most. Any other failure to start fails at once.
for attempt in 1 2 3; do
    PORT="$(free_port)"
    export PORT
    echo "smoke: $WEB  (PORT=$PORT)"
    sh -c "exec $WEB" >"$LOG" 2>&1 &
    SERVER=$!
    up=""
    for _ in $(seq 1 100); do
        if ! kill -0 "$SERVER" 2>/dev/null; then
            wait "$SERVER" 2>/dev/null || true
            SERVER=""
            break
        fi
        if python - <<'EOF' 2>/dev/null
import os, urllib.request
with urllib.request.urlopen(f"http://127.0.0.1:{os.environ['PORT']}/healthz", timeout=1) as r:
    assert r.status == 200
EOF
        then up=1; break; fi
        sleep 0.2
    done
    [ -n "$up" ] && break
    if [ -z "$SERVER" ] && grep -q "Address already in use" "$LOG" && [ "$attempt" -lt 3 ]; then
        echo "smoke: port $PORT was taken meanwhile; choosing another" >&2; continue
    fi
    echo "smoke: the server did not start:" >&2; cat "$LOG" >&2; exit 1
done

status=0
python - <<'EOF' || status=$?
"""Checks over real HTTP, one kept-alive connection (gthread workers keep it open)."""
import http.client
import json
import os
import sys

conn = http.client.HTTPConnection("127.0.0.1", int(os.environ["PORT"]), timeout=10)
failures = 0


def request(method, path, body=None, headers=None):
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    return response, data


def check(name, ok, detail=""):
    global failures
    print(f"smoke: {'ok  ' if ok else 'FAIL'} {name}{'' if ok else ': ' + str(detail)}")
    failures += not ok


r, data = request("GET", "/healthz")
check("healthz", r.status == 200 and json.loads(data) == {"status": "ok"}, data)

r, data = request("GET", "/v1/words/taps")
body = json.loads(data)
check("word TAPS is legal, scores 10", r.status == 200 and body["legal"] is True and body["score"] == 10, data)
check("word headers", r.getheader("X-Content-Type-Options") == "nosniff" and r.getheader("Access-Control-Allow-Origin") == "*"
      and r.getheader("Cache-Control") == "public, max-age=86400" and r.getheader("ETag"), r.getheaders())
check("connection kept alive", r.getheader("Connection", "keep-alive").lower() != "close" and not r.will_close, r.getheaders())
etag = r.getheader("ETag")

r, data = request("GET", "/v1/words/taps", headers={"If-None-Match": etag})
check("If-None-Match gives 304", r.status == 304 and data == b"", r.status)

r, data = request("GET", "/v1/words/don't")
body = json.loads(data)
check("word DON'T: 200, contraction", r.status == 200 and body["reasons"][0]["code"] == "contraction", data)

r, data = request("POST", "/v1/words", json.dumps({"words": ["taps", "jazz", "london"], "level": 60}),
                  {"Content-Type": "application/json"})
body = json.loads(data)
check("batch keeps order", r.status == 200 and [v["word"] for v in body["results"]] == ["TAPS", "JAZZ", "LONDON"], data)
check("batch verdicts", [v["legal"] for v in body["results"]] == [True, False, False], data)

r, data = request("GET", "/v1/racks/tapsxe?limit=3")
body = json.loads(data)
check("rack best first", r.status == 200 and body["letters"] == "TAPSXE" and len(body["words"]) == 3
      and body["words"][0]["score"] >= body["words"][-1]["score"], data)

r, data = request("GET", "/v1/words/t4ps")
check("bad word is a 400 problem", r.status == 400 and r.getheader("Content-Type") == "application/problem+json"
      and json.loads(data)["status"] == 400, data)

r, data = request("GET", "/v1/words/t4ps", headers={"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"})
body = json.loads(data)
check("a problem in Spanish", r.status == 400 and r.getheader("Content-Language") == "es"
      and r.getheader("Vary") == "Accept-Language" and body["title"] == "Palabra no válida", (r.getheaders(), data))

r, data = request("GET", "/v1/words/taps", headers={"Accept-Language": "es"})
check("a verdict in Spanish has its own ETag", r.status == 200 and r.getheader("Content-Language") == "es"
      and r.getheader("ETag") != etag, r.getheaders())

r, data = request("GET", "/v1/nothing")
check("unknown path is a 404 problem", r.status == 404 and r.getheader("Content-Type") == "application/problem+json", data)

r, data = request("POST", "/v1/words", b'{"words": []}' + b" " * (64 * 1024), {"Content-Type": "application/json"})
check("body over 64 KiB is a 413 problem", r.status == 413 and r.getheader("Content-Type") == "application/problem+json", data)
conn.close()

sys.exit(1 if failures else 0)
EOF

# The example clients of the README, against the same live server: they exit 1 if an answer changes shape.
for client in "python examples/client.py" "node examples/client.js"; do
    if ! command -v "${client%% *}" >/dev/null 2>&1; then
        echo "smoke: FAIL ${client%% *} is missing (bash examples/setup.sh installs it)" >&2; status=1; continue
    fi
    if $client "http://127.0.0.1:$PORT" >"$LOG.client" 2>&1; then
        echo "smoke: ok   $client"
    else
        echo "smoke: FAIL $client:" >&2; cat "$LOG.client" >&2; status=1
    fi
done
rm -f "$LOG.client"

if ! grep -q '"GET /v1/words/taps HTTP/1.1" 200' "$LOG"; then
    echo "smoke: FAIL no access log line on stdout" >&2; status=1
fi
kill -TERM "$SERVER"
if ! wait "$SERVER"; then echo "smoke: FAIL the server did not stop cleanly" >&2; status=1; fi
SERVER=""
if [ "$status" -ne 0 ]; then echo "smoke: server log:" >&2; cat "$LOG" >&2; fi
echo "smoke: $([ "$status" -eq 0 ] && echo passed || echo FAILED)"
exit "$status"
