#!/usr/bin/env node
// A small client of the Unspeakable Words word service: fetch only (Node 18 or later, or a browser).
//
// Usage: node examples/client.js [BASE_URL]   (default http://127.0.0.1:8000)
//
// It checks one word, a batch, a rack, and handles an error (problem+json). It exits 1 if an
// answer does not have the documented shape, so CI runs it against the live server
// (tests/smoke_server.sh).
"use strict";

const VERDICT_KEYS = ["deck", "legal", "letters", "level", "reasons", "score", "success_chance", "word"];
const RACK_KEYS = ["deck", "letters", "level", "words"];
const PROBLEM_KEYS = ["detail", "status", "title", "type"];

class ProblemError extends Error {
  constructor(problem) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`);
    this.problem = problem;
  }
}

class WordService {
  constructor(baseUrl) {
    this.baseUrl = baseUrl.replace(/\/$/, "");
  }

  async call(path, body) {
    const response = await fetch(this.baseUrl + path, {
      method: body === undefined ? "GET" : "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10000),
    });
    if (response.headers.get("Content-Type") === "application/problem+json") {
      throw new ProblemError(await response.json());
    }
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  }

  static query(params) {
    const entries = Object.entries(params).filter(([, value]) => value !== undefined);
    return entries.length ? "?" + new URLSearchParams(entries).toString() : "";
  }

  check(word, { level, deck } = {}) {
    return this.call(`/v1/words/${encodeURIComponent(word)}` + WordService.query({ level, deck }));
  }

  async batch(words, { level, deck } = {}) {
    const body = { words };
    if (level !== undefined) body.level = level;
    if (deck !== undefined) body.deck = deck;
    return (await this.call("/v1/words", body)).results;
  }

  rack(letters, { limit, deck } = {}) {
    return this.call(`/v1/racks/${encodeURIComponent(letters)}` + WordService.query({ limit, deck }));
  }
}

function expect(condition, what) {
  if (!condition) {
    console.error(`client.js: unexpected answer: ${what}`);
    process.exit(1);
  }
}

const sameKeys = (object, keys) => JSON.stringify(Object.keys(object).sort()) === JSON.stringify(keys);

async function main(baseUrl) {
  const service = new WordService(baseUrl);

  const verdict = await service.check("taps");
  expect(sameKeys(verdict, VERDICT_KEYS), `verdict keys ${Object.keys(verdict)}`);
  expect(verdict.legal === true && verdict.score === 10, `TAPS ${JSON.stringify(verdict)}`);
  console.log(`TAPS: legal=${verdict.legal} score=${verdict.score} deck=${verdict.deck}`);

  const jazz = await service.check("jazz", { deck: "double" });
  expect(jazz.legal === true && jazz.deck === "double", `JAZZ with the double deck ${JSON.stringify(jazz)}`);
  console.log(`JAZZ with the double deck: legal=${jazz.legal}`);

  const results = await service.batch(["taps", "london", "it"], { level: 60 });
  expect(results.length === 3 && results.every((r) => sameKeys(r, VERDICT_KEYS)), "batch verdict keys");
  expect(JSON.stringify(results.map((r) => r.legal)) === "[true,false,false]", `batch ${JSON.stringify(results)}`);
  for (const r of results) console.log(`  ${r.word}: legal=${r.legal} reason=${r.reasons.length ? r.reasons[0].code : "-"}`);

  const rack = await service.rack("tapsxe", { limit: 3 });
  expect(sameKeys(rack, RACK_KEYS) && rack.words.length === 3, `rack ${JSON.stringify(rack)}`);
  expect(rack.words.every((w) => sameKeys(w, ["score", "success_chance", "word"])), "rack word keys");
  console.log("TAPSXE best: " + rack.words.map((w) => `${w.word} (${w.score})`).join(", "));

  for (const [what, attempt, check] of [
    ["T4PS", () => service.check("t4ps"), (p) => p.status === 400],
    ["unknown deck", () => service.check("taps", { deck: "dubble" }), (p) => p.status === 400 && p.detail.includes("standard, double")],
  ]) {
    try {
      await attempt();
      expect(false, `${what} was not refused`);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      expect(sameKeys(error.problem, PROBLEM_KEYS) && check(error.problem), `problem ${JSON.stringify(error.problem)}`);
      console.log(`${what} refused: ${error.message}`);
    }
  }
  console.log("client.js: ok");
}

main(process.argv[2] || "http://127.0.0.1:8000").catch((error) => {
  console.error(`client.js: ${error.message}`);
  process.exit(1);
});
