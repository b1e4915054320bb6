#!/bin/sh
# BENCHMARKS.md "Hosted tables": every figure of issue 25 in one command, from a normal (non-editable) install:
#   python3 -m venv /tmp/uw-bench25 && /tmp/uw-bench25/bin/pip install -q .
#   sh benchmarks/hosted_figures.sh /tmp/uw-bench25/bin/python 2>&1 | tee /tmp/hosted-figures.txt
# PostgreSQL (2 replicas, a throw-away cluster) beside SQLite (1 replica) at 1 to 1,000 tables; the streams alone;
# the three faults under load at 1,000 tables. About 35 minutes on a 2-core machine.
PY=${1:-/tmp/uw-bench25/bin/python}
HERE=$(cd "$(dirname "$0")" && pwd)
cd /tmp || exit 2
date -u; uptime
"$PY" "$HERE/bench_hosted.py" --tables 1 10 30 --think 1
"$PY" "$HERE/bench_hosted.py" --tables 100 300 1000 --think 5
"$PY" "$HERE/bench_hosted.py" --tables 1000 --think 100000 --seconds 20 --only postgresql
for fault in kill pg-restart netcut; do
    "$PY" "$HERE/bench_hosted.py" --tables 1000 --think 20 --fault "$fault"
done
date -u; uptime
