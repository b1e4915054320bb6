"""Benchmarks of the word logic and the referee, each figure beside a baseline measured in the same run.

    .venv/bin/python benchmarks/bench_words.py            (or: make bench)

The machine is shared and noisy: read the ratios, not the absolute times. Targets (issues 2 and 4):
verdict <= 5 us median; dictionary <= 10 MB above the bare interpreter after 100,000 lookups; a
7-letter rack <= 200 us median, a 20-letter rack <= 50 ms; replaying a 1,000-event game < 50 ms.
Whole commands as a user runs them: benchmarks/bench_referee.py.
"""
from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not __package__:  # run as a script (python benchmarks/x.py): the repository's packages import from here
    sys.path.insert(0, str(ROOT))

from dictionaries.deck import STANDARD  # noqa: E402 - after the sys.path line above
from dictionaries.dictionary import Dictionary  # noqa: E402 - after the sys.path line above
from dictionaries.verdict import judge  # noqa: E402 - after the sys.path line above

BIN = Path(sys.executable).parent


def median_us(fn, items, repeat: int = 5) -> float:
    """Median over ``items`` of the best-of-``repeat`` time of fn(item), in microseconds."""
    times = []
    for item in items:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            fn(item)
            best = min(best, time.perf_counter() - start)
        times.append(best)
    return statistics.median(times) * 1e6


def rss_kb(code: str, field: str = "VmRSS") -> int:
    """A memory figure (kB) of /proc/self/status of a fresh interpreter after running ``code``."""
    script = code + f"\nimport re\nprint(re.search(r'{field}:\\s+(\\d+)', open('/proc/self/status').read()).group(1))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    return int(out.stdout.split()[-1])


def row(name: str, value: float, unit: str, base_name: str, base: float, target: str) -> None:
    print(f"{name:<38} {value:>10.2f} {unit:<3} | {base_name:<30} {base:>10.2f} {unit:<3} | ratio {value / base:>7.2f} | {target}")


def main() -> None:
    d = Dictionary()
    rng = random.Random(2026)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, dictionary {d.metadata['keys']} spellings\n")
    print(f"{'measure':<38} {'value':>14} | {'baseline':<30} {'value':>14} | {'ratio':>13} | target")

    # 1. Verdict per word against a set lookup, over a sample of real keys and some non-words.
    keys = list(d._words.iterkeys())
    sample = rng.sample(keys, 2000) + ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)) for _ in range(200)]
    common = [w.word.lower() for w in d.rack("aeilnrstoupcmdhgbyk")][:2000]
    plain = set(keys)
    row("verdict, words a table plays", median_us(lambda w: judge(d, w), common), "us", "set lookup",
        median_us(lambda w: w in plain, common), "<= 5 us")
    typed = [k for k in rng.sample(keys, 20000) if 3 <= len(k) <= 7][:2000]
    row("verdict, any 3-7 letter spelling", median_us(lambda w: judge(d, w), typed), "us", "set lookup",
        median_us(lambda w: w in plain, typed), "<= 5 us")
    row("verdict, random keys (median 9 letters)", median_us(lambda w: judge(d, w), sample), "us", "set lookup",
        median_us(lambda w: w in plain, sample), "<= 5 us")

    # 2. Memory: the dictionary after 100,000 lookups, against a set of the same entries.
    bare = rss_kb("pass")
    imports = rss_kb("from dictionaries.dictionary import Dictionary\nfrom dictionaries.verdict import judge")
    # 100,000 verdicts on words drawn at random from every spelling, streamed from a file so that
    # the word list itself is not in the measured process.
    sample_file = Path(tempfile.mkstemp(suffix=".txt")[1])
    sample_file.write_text("\n".join(rng.choice(keys) for _ in range(100_000)) + "\n")
    lookups = ("from dictionaries.dictionary import Dictionary\nfrom dictionaries.verdict import judge\nd = Dictionary()\n"
               f"with open({str(sample_file)!r}) as f:\n    for line in f:\n        judge(d, line.strip())")
    as_set = ("from dictionaries.dictionary import Dictionary\nd = Dictionary()\n"
              "s = set(d._words.iterkeys())\nassert len(s) > 400000\ndel d")
    with_dict = rss_kb(lookups)
    with_set = rss_kb(as_set)
    print(f"{'memory: dictionary + 100k verdicts':<38} {(with_dict - bare) / 1024:>10.2f} MB  | "
          f"{'a Python set of all entries':<30} {(with_set - bare) / 1024:>10.2f} MB  | "
          f"ratio {(with_dict - bare) / max(with_set - bare, 1):>7.2f} | <= 10 MB above bare ({bare / 1024:.1f} MB)")
    print(f"{'  of which the imports alone':<38} {(imports - bare) / 1024:>10.2f} MB")
    anon = rss_kb(lookups, "RssAnon") - rss_kb("pass", "RssAnon")
    shared = rss_kb(lookups, "RssFile") - rss_kb("pass", "RssFile")
    sample_file.unlink()
    print(f"{'  private (RssAnon) / file pages (RssFile)':<38} {anon / 1024:>10.2f} MB / {shared / 1024:.2f} MB "
          "(the file pages are the memory-mapped dictionary, shared by every process)")

    # 3. Rack search against a brute-force scan of the word list.
    cards = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for _ in range(STANDARD.count(c))]
    words = [(k, Counter(k)) for k in keys if 3 <= len(k) <= 7 and judge(d, k).legal]

    def brute(rack: str) -> list[tuple[int, str]]:
        have = Counter(rack.lower())
        found = [(STANDARD.score(k), k) for k, need in words if not need - have]
        found.sort(key=lambda t: (-t[0], -len(t[1]), t[1]))
        return found

    racks7 = ["".join(rng.sample(cards, 7)) for _ in range(300)]
    racks20 = ["".join(rng.sample(cards, 20)) for _ in range(30)]
    for rack in racks7[:20] + racks20[:3]:
        assert [w.word.lower() for w in d.rack(rack)] == [k for _, k in brute(rack)], rack
    brute7 = median_us(brute, racks7[:30], repeat=1)
    row("rack search, 7 letters (median)", median_us(d.rack, racks7), "us", "brute-force scan", brute7, "<= 200 us")
    brute20 = median_us(brute, racks20[:10], repeat=1)
    row("rack search, 20 letters (median)", median_us(d.rack, racks20, repeat=3) / 1e3, "ms", "brute-force scan",
        brute20 / 1e3, "<= 50 ms")

    # 4. Replaying a 1,000-event game.
    from referee.engine import Discarded, Game, Options, RollOff, SanityRolled, Setup, WordPlayed

    setup = Setup(("Ann", "Bob", "Cy"), target=10**9, options=Options(psychotherapy=False), card_accounting=False)
    game = Game(setup)
    game.apply(RollOff(first="Ann"))
    pool = iter([w.word for w in d.rack("aeilnrstoupcmdhgbykf") if w.score < 20] + [w.word for w in d.rack("eeaioulnrstwvxzjqgdp") if w.score < 20])
    while game.count < 1000:
        name = game.state.current.name  # type: ignore[union-attr]  # under way: there is a current player
        if game.count % 7 == 0:
            game.apply(Discarded(name))
            continue
        word = next(pool)
        game.apply(WordPlayed(name, word, STANDARD.score(word), True))
        game.apply(SanityRolled(name, 20))
    events = list(game.events)
    replay_ms = median_us(lambda evs: Game.replay(evs), [events] * 15, repeat=1) / 1e3
    import json

    from referee.engine import event_from_dict

    raw = [json.dumps(e.to_dict()) for e in events]
    decode_ms = median_us(lambda rs: [event_from_dict(json.loads(r)) for r in rs], [raw] * 15, repeat=1) / 1e3
    row(f"replay {len(events)} events", replay_ms, "ms", "json-decode the same events", decode_ms, "< 50 ms")


if __name__ == "__main__":
    main()
