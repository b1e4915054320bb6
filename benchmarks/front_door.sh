#!/bin/sh
# The quick path (referee/quick.py, the `uw-referee` entry point) against the Click CLI, which loads its game
# commands lazily (referee/cli.py's LazyGroup), on the commands the quick path answers, beside `python -c pass`
# measured in the same hyperfine run. Install as a user does first (a normal, non-editable install):
#   python3 -m venv /tmp/uw-bench && /tmp/uw-bench/bin/pip install .
#   sh benchmarks/front_door.sh /tmp/uw-bench
# Each line: the mean wall time and the mean CPU time (user + system; steadier on a loaded machine) of each
# command, and the Click CLI's over the quick path's. `play` is timed after an untimed `undo` of the last one.
set -eu
VENV=${1:?the scratch venv holding a non-editable install}
RUNS=${RUNS:-40}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export UW_REFEREE_DB="$WORK/games.sqlite3" UW_LANG=en NO_COLOR=1
PY="$VENV/bin/python"
"$VENV/bin/uw-referee" new Ann Bob --first Ann >/dev/null
"$VENV/bin/uw-referee" play taps --roll 12 >/dev/null
"$VENV/bin/uw-referee" play rum --roll 20 >/dev/null
"$PY" -c 'import platform, os; print(f"python {platform.python_version()}, {os.cpu_count()} cpus, load average "
           f"{os.getloadavg()[0]:.1f}, {'"$RUNS"'} runs each")'
for args in "check taps" "status" "status --json" "games" "play rum --roll 20"; do
    undo=true
    case "$args" in play*) undo="$VENV/bin/uw-referee undo";; esac
    hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/out.json" \
        --prepare true --prepare "$undo" --prepare "$undo" \
        "$PY -c pass" \
        "$PY -c 'from referee.quick import main; main()' $args" \
        "$PY -c 'from referee.cli import main; main()' $args" >/dev/null 2>&1
    "$PY" - "$WORK/out.json" "$args" <<'PYTHON'
import json, sys
base, quick, click = json.load(open(sys.argv[1]))["results"]
cpu = lambda r: (r["user"] + r["system"]) * 1000
print(f"{sys.argv[2]:<20} python -c pass {base['mean'] * 1000:6.1f} ms (cpu {cpu(base):5.1f}) | "
      f"quick {quick['mean'] * 1000:6.1f} ms (cpu {cpu(quick):5.1f}) | click {click['mean'] * 1000:6.1f} ms "
      f"(cpu {cpu(click):5.1f}) | click/quick wall {click['mean'] / quick['mean']:.2f}, cpu {cpu(click) / cpu(quick):.2f}")
PYTHON
done
