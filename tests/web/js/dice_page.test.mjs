// A month's row on the dice page (fibs_server/web/static/dice_page.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { monthCells } from "../../../fibs_server/web/static/dice_page.js";

const month = (dice) => ({ month: "2026-11", matches: 12, files: [], dice });

test("a month with enough rolls: shares, pips a roll and the chi-square with its verdict", () => {
  assert.deepEqual(monthCells(month({
    rolls: 360, doubles: 66, pips: 2952, fair_pips_per_roll: 49 / 6, chi_square: 38.04,
    p_value: 0.0087, enough_rolls: true, unusual: true,
  })), ["2026-11", "12", "360", "66 (18.3%, fair 16.7%)", "8.20 (fair 8.17)", "38.0",
    "0.009 unusual"]);
});

test("too few rolls for the chi-square; no rolls at all", () => {
  const few = monthCells(month({
    rolls: 20, doubles: 3, pips: 170, fair_pips_per_roll: 49 / 6, chi_square: 9,
    p_value: 0.98, enough_rolls: false, unusual: false,
  }));
  assert.deepEqual(few.slice(5), ["too few rolls", "–"]);
  const none = monthCells(month({
    rolls: 0, doubles: 0, pips: 0, fair_pips_per_roll: 49 / 6, chi_square: 0,
    p_value: 1, enough_rolls: false, unusual: false,
  }));
  assert.deepEqual(none.slice(3, 5), ["0 (–, fair 16.7%)", "–"]);
});
