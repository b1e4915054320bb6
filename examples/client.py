#!/usr/bin/env python3
"""A small client of the Unspeakable Words word service, standard library only.

Usage: python3 examples/client.py [BASE_URL]   (default http://127.0.0.1:8000)

It checks one word, a batch, a rack, and handles an error (problem+json). It exits 1 if an answer
does not have the documented shape, so CI runs it against the live server (tests/smoke_server.sh).
"""
from __future__ import annotations

import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

VERDICT_KEYS = {"word", "legal", "reasons", "score", "letters", "level", "success_chance", "deck"}
RACK_KEYS = {"letters", "level", "deck", "words"}
PROBLEM_KEYS = {"type", "title", "status", "detail"}


class ProblemError(Exception):
    """The service refused the request: an RFC 9457 problem document."""

    def __init__(self, problem: dict[str, Any]) -> None:
        super().__init__(f"{problem['status']} {problem['title']}: {problem['detail']}")
        self.problem = problem


class WordService:
    """The /v1 API: check, batch, rack."""

    def __init__(self, base_url: str, timeout: float = 10) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def _call(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data,
                                         headers={"Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            if error.headers.get("Content-Type") == "application/problem+json":
                raise ProblemError(json.load(error)) from None
            raise

    def check(self, word: str, level: int | None = None, deck: str | None = None) -> dict[str, Any]:
        """The verdict on one word."""
        query = urllib.parse.urlencode({k: v for k, v in (("level", level), ("deck", deck)) if v is not None})
        return self._call(f"/v1/words/{urllib.parse.quote(word, safe='')}" + (f"?{query}" if query else ""))

    def batch(self, words: list[str], level: int | None = None, deck: str | None = None) -> list[dict[str, Any]]:
        """Verdicts on up to 1,000 words, in order."""
        body: dict[str, Any] = {"words": words}
        if level is not None:
            body["level"] = level
        if deck is not None:
            body["deck"] = deck
        return self._call("/v1/words", body)["results"]

    def rack(self, letters: str, limit: int | None = None, deck: str | None = None) -> dict[str, Any]:
        """The best words a rack makes."""
        query = urllib.parse.urlencode({k: v for k, v in (("limit", limit), ("deck", deck)) if v is not None})
        return self._call(f"/v1/racks/{letters}" + (f"?{query}" if query else ""))


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"client.py: unexpected answer: {what}")


def main(base_url: str) -> None:
    service = WordService(base_url)

    verdict = service.check("taps")
    expect(set(verdict) == VERDICT_KEYS, f"verdict keys {sorted(verdict)}")
    expect(verdict["legal"] is True and verdict["score"] == 10, f"TAPS {verdict}")
    print(f"TAPS: legal={verdict['legal']} score={verdict['score']} deck={verdict['deck']}")

    jazz = service.check("jazz", deck="double")
    expect(jazz["legal"] is True and jazz["deck"] == "double", f"JAZZ with the double deck {jazz}")
    print(f"JAZZ with the double deck: legal={jazz['legal']}")

    results = service.batch(["taps", "london", "it"], level=60)
    expect([set(r) for r in results] == [VERDICT_KEYS] * 3, "batch verdict keys")
    expect([r["legal"] for r in results] == [True, False, False], f"batch {results}")
    for r in results:
        reason = r["reasons"][0]["code"] if r["reasons"] else "-"
        print(f"  {r['word']}: legal={r['legal']} reason={reason}")

    rack = service.rack("tapsxe", limit=3)
    expect(set(rack) == RACK_KEYS and len(rack["words"]) == 3, f"rack {rack}")
    expect(all(set(w) == {"word", "score", "success_chance"} for w in rack["words"]), "rack word keys")
    print("TAPSXE best: " + ", ".join(f"{w['word']} ({w['score']})" for w in rack["words"]))

    try:
        service.check("t4ps")
    except ProblemError as error:
        expect(set(error.problem) == PROBLEM_KEYS and error.problem["status"] == 400, f"problem {error.problem}")
        print(f"T4PS refused: {error}")
    else:
        expect(False, "t4ps was not refused")

    try:
        service.check("taps", deck="dubble")
    except ProblemError as error:
        expect(error.problem["status"] == 400 and "standard, double" in error.problem["detail"], f"{error.problem}")
        print(f"unknown deck refused: {error.problem['detail']}")
    else:
        expect(False, "deck=dubble was not refused")
    print("client.py: ok")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
