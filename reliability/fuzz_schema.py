"""schemathesis against the live server: generated valid and invalid requests from the OpenAPI
document, every check (``--checks all``: no 5xx, documented statuses, headers and bodies, invalid
requests refused, valid ones accepted), through gunicorn as the Procfile starts it.

Run: ``.venv/bin/python reliability/fuzz_schema.py`` (``--examples 1000`` per operation and phase,
at least ``--min-cases 10000`` cases; ``--seed``). Prints the cases generated, passed and failed
and the server log's errors; exit status 0 when no case failed, at least ``--min-cases`` ran, and
the server logged no traceback.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a script (python reliability/x.py): the repository's packages import from here
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reliability.common import Server

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
CONFIG = Path(__file__).resolve().parent / "schemathesis.toml"


def run(examples: int, seed: int, workers: int | None = None, phases: str = "examples,coverage,fuzzing,stateful") -> dict[str, object]:
    """Start the server, run schemathesis, stop the server: the figures of the run."""
    with tempfile.TemporaryDirectory() as tmp, Server(workers=workers) as server:
        report = Path(tmp) / "events.ndjson"
        started = time.perf_counter()
        done = subprocess.run(
            [str(SCHEMATHESIS), "--config-file", str(CONFIG), "run", f"{server.url}/openapi.json", "--checks", "all", "--max-examples", str(examples),
             "--seed", str(seed), "--phases", phases, "--continue-on-failure", "--report", "ndjson", "--report-ndjson-path", str(report),
             "--no-color"],
            capture_output=True, text=True, timeout=3600, cwd=tmp)  # its example database goes there too
        seconds = time.perf_counter() - started
        log = server.log()
    cases = passed = failed = 0
    for line in done.stdout.splitlines():  # "  730 generated, 730 passed" or "..., 3 failed"
        if "generated" in line and ("passed" in line or "failed" in line):
            for part in line.strip().split(","):
                number, _, word = part.strip().partition(" ")
                if number.isdigit():
                    cases += int(number) if word.startswith("generated") else 0
                    passed += int(number) if word.startswith("passed") else 0
                    failed += int(number) if word.startswith("failed") else 0
    return {"examples_per_operation": examples, "seed": seed, "phases": phases, "cases": cases, "passed": passed, "failed": failed,
            "seconds": round(seconds, 1), "schemathesis_exit": done.returncode,
            "server_tracebacks": log.count("Traceback"), "server_errors": log.count("[ERROR]"),
            "output_tail": done.stdout[-3000:] if done.returncode else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1000, help="schemathesis --max-examples (default 1000)")
    parser.add_argument("--min-cases", type=int, default=10000, help="fail unless this many cases ran (default 10000)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--phases", default="examples,coverage,fuzzing,stateful",
                        help="schemathesis phases (the stateful phase grows slowly with --examples)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    result = run(args.examples, args.seed, phases=args.phases)
    ok = (result["failed"] == 0 and result["schemathesis_exit"] == 0 and result["cases"] >= args.min_cases
          and result["server_tracebacks"] == 0)
    print(f"schemathesis --checks all: {result['cases']} cases, {result['passed']} passed, {result['failed']} failed "
          f"in {result['seconds']} s (seed {result['seed']}, --max-examples {result['examples_per_operation']}, "
          f"phases {result['phases']}); "
          f"server log: {result['server_tracebacks']} tracebacks, {result['server_errors']} errors")
    if result["output_tail"]:
        print(result["output_tail"])
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    print("fuzz: " + ("passed" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
