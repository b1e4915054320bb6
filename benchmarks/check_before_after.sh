#!/usr/bin/env bash
# `uw-referee check` of two commits, each from a normal `pip install .` into its own venv, timed in one run
# (40 alternating runs; medians and the ratio). Issue 36 measured the word data's change with it:
#     bash benchmarks/check_before_after.sh d0c2d4c HEAD
set -euo pipefail
old=${1:?old commit} new=${2:-HEAD}
root=$(git rev-parse --show-toplevel) work=$(mktemp -d)
for side in old new; do
    commit=$old; [ "$side" = new ] && commit=$new
    mkdir -p "$work/src_$side" && git -C "$root" archive "$commit" | tar -x -C "$work/src_$side"
    python3 -m venv "$work/venv_$side" && "$work/venv_$side/bin/pip" install -q "$work/src_$side" >/dev/null
done
WORK=$work python3 - <<'PY'
import os, statistics, subprocess, tempfile, time
work = os.environ["WORK"]
words = ["taps", "apts", "london", "birrs", "bees", "quinoa", "noir"]
env = dict(os.environ, HOME=tempfile.mkdtemp(), UW_REFEREE_DB=os.path.join(tempfile.mkdtemp(), "g.db"))
times: dict[str, list[float]] = {k: [] for k in ("old", "new", "old --define", "new --define")}
for i in range(40):
    for side in ("old", "new") if i % 2 == 0 else ("new", "old"):
        for extra in ([], ["--define"]):
            start = time.perf_counter()
            subprocess.run([f"{work}/venv_{side}/bin/uw-referee", "check", *extra, *words], env=env, capture_output=True)
            times[side + (" --define" if extra else "")].append(time.perf_counter() - start)
for key, values in times.items():
    print(f"{key}: median {statistics.median(values) * 1000:.1f} ms")
for extra in ("", " --define"):
    print(f"check{extra} new/old: {statistics.median(times['new' + extra]) / statistics.median(times['old' + extra]):.3f}")
PY
rm -rf "$work"
