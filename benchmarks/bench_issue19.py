"""Issue 19: do `check` and the service's single-word answer cost no more than before the new word rules?

    .venv/bin/python benchmarks/bench_issue19.py [--before 62430f8] [--rounds 15]

Installs the tree at ``--before`` and the working tree, each with a normal ``pip install .`` (not
editable) into its own virtual environment under a temporary directory, then in interleaved rounds:

- ``uw-referee check WORD...`` as a user runs it: CPU time (user + system, from ``wait4``) of one
  process checking a mix of legal and refused words, beside ``python -c pass`` of the same interpreter;
- the service's single-word answer: ``GET /v1/words/<word>`` through the Flask app in process, median
  microseconds per request over the same mix (legal words, refusals of every kind, with definitions
  and without).

Each figure of the working tree is printed beside the same figure of ``--before`` from the same round.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["taps", "jazz", "london", "quo", "flam", "staler", "relist", "gaol", "asker", "loyaler", "reddy", "xyzzy",
         "nasa", "dont", "cat", "zebras", "prima", "dojo"]
SERVICE = """
import statistics, sys, time
from service.app import create_app
client = create_app().test_client()
words = sys.argv[1].split(",")
paths = [f"/v1/words/{w}" for w in words] + [f"/v1/words/{w}?define=true" for w in words]
for path in paths:
    client.get(path)
times = []
for _ in range(200):
    for path in paths:
        start = time.perf_counter()
        client.get(path)
        times.append(time.perf_counter() - start)
print(statistics.median(times) * 1e6)
"""


def install(tree: Path, venv: Path) -> Path:
    """A normal (non-editable) install of ``tree`` into a new virtual environment; its bin directory."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(tree)], check=True)
    return venv / "bin"


def cpu_ms(argv: list[str], cwd: Path) -> float:
    """CPU time (user + system) of one run of ``argv``, in milliseconds."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _status, usage = os.wait4(proc.pid, 0)
    return (usage.ru_utime + usage.ru_stime) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="62430f8", help="the commit to compare with (default: before issue 19)")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        old_tree = tmp / "before"
        old_tree.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old_tree)], input=archive, check=True)
        bins = {"before": install(old_tree, tmp / "venv-before"), "now": install(ROOT, tmp / "venv-now")}
        work = tmp / "cwd"
        work.mkdir()
        env_home = {**os.environ, "HOME": str(work)}
        os.environ.update(env_home)
        figures: dict[str, list[float]] = {key: [] for key in
                                           ("check before", "check now", "pass before", "pass now", "get before", "get now")}
        for _ in range(args.rounds):
            for name, bin_dir in bins.items():
                figures[f"check {name}"].append(cpu_ms([str(bin_dir / "uw-referee"), "check", *WORDS], work))
                figures[f"pass {name}"].append(cpu_ms([str(bin_dir / "python"), "-c", "pass"], work))
                out = subprocess.run([str(bin_dir / "python"), "-c", SERVICE, ",".join(WORDS)], cwd=work,
                                     capture_output=True, text=True, check=True).stdout
                figures[f"get {name}"].append(float(out.strip()))
        med = {key: statistics.median(values) for key, values in figures.items()}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.rounds} interleaved rounds; "
          f"{len(WORDS)} words ({', '.join(WORDS)})")
    print(f"uw-referee check WORDS (CPU)   now {med['check now']:7.2f} ms | before {med['check before']:7.2f} ms | "
          f"ratio {med['check now'] / med['check before']:.2f} (python -c pass: {med['pass now']:.2f} / "
          f"{med['pass before']:.2f} ms)")
    print(f"GET /v1/words/<word> (median)  now {med['get now']:7.1f} us | before {med['get before']:7.1f} us | "
          f"ratio {med['get now'] / med['get before']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
