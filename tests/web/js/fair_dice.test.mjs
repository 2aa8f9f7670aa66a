// The page's check of a finished match's dice (fibs_server/web/static/fair_dice.js), against
// a match whose rolls the server's own generator made (fixtures/dice.json, checked against
// rules/dice.py by tests/web/test_archive_api.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { randomSalt, verifyDice } from "../../../fibs_server/web/static/fair_dice.js";

const DICE = JSON.parse(readFileSync(new URL("./fixtures/dice.json", import.meta.url)));

test("every roll of a salted match recomputes from its seed and salts", async () => {
  assert.deepEqual(await verifyDice(DICE), { ok: true, count: 40 });
});

test("a tampered roll is caught, and named", async () => {
  const rolls = DICE.rolls.map((roll) => [...roll]);
  const [a, b] = rolls[17];
  rolls[17] = a !== b ? [b, a] : [(a % 6) + 1, b];
  assert.deepEqual(await verifyDice({ ...DICE, rolls }),
    { ok: false, wrong: 17, roll: rolls[17], expected: DICE.rolls[17] });
});

test("a salt left out, or a seed not the committed one, is caught", async () => {
  const unsalted = await verifyDice({ ...DICE, salts: [DICE.salts[0], null] });
  assert.equal(unsalted.ok, false);
  assert.equal(unsalted.wrong, 5); // the first pair bob's salt entered
  const otherSeed = "ff" + DICE.seed.slice(2);
  assert.deepEqual(await verifyDice({ ...DICE, seed: otherSeed }),
    { ok: false, wrong: "commitment" });
});

test("a salt is 32 random hex digits, the `salt` command's kind of word", () => {
  const salts = new Set([randomSalt(), randomSalt()]);
  assert.equal(salts.size, 2);
  for (const salt of salts) assert.match(salt, /^[0-9a-f]{32}$/);
});
