// The banner of a timed match's countdown of absence (fibs_server/web/static/absence_banner.js):
// who must come back by when, from each side; and the match waiting for both.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.document = { getElementById: () => ({}) };
const { absenceText } = await import("../../../fibs_server/web/static/absence_banner.js");

const said = (key, values) => `${key} ${JSON.stringify(values)}`;
const left = { type: "comeback_countdown", name: "bob", opponent: "alice", seconds: 60 };

test("the one who waits and the watchers are told who must come back by when", () => {
  assert.equal(absenceText(left, 42, "alice", said), 'absence.countdown {"name":"bob","seconds":42}');
  assert.equal(absenceText(left, 42, "carol", said), 'absence.countdown {"name":"bob","seconds":42}');
});

test("the one who left is told their own deadline", () => {
  assert.equal(absenceText(left, 7, "bob", said), 'absence.your_countdown {"seconds":7}');
});

test("a match that waits for both names the other player to each", () => {
  const waits = { ...left, seconds: null };
  assert.equal(absenceText(waits, null, "alice", said), 'absence.waits {"name":"bob"}');
  assert.equal(absenceText(waits, null, "bob", said), 'absence.waits {"name":"alice"}');
});
