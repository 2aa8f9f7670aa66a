// The page's connection schedule (fibs_server/web/static/connection.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_PACE, SilenceCount, retryWait } from "../../../fibs_server/web/static/connection.js";

test("the waits double from the first to the most, each between half and all of it", () => {
  const ceilings = [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000];
  ceilings.forEach((ceiling, attempt) => {
    assert.equal(retryWait(attempt, DEFAULT_PACE, 0), ceiling / 2);
    assert.ok(Math.abs(retryWait(attempt, DEFAULT_PACE, 0.999999) - ceiling) < 0.01);
    assert.equal(retryWait(attempt, DEFAULT_PACE, 0.5), ceiling * 0.75);
  });
  assert.equal(retryWait(60, DEFAULT_PACE, 0), 5000); // no overflow however long it lasts
});

test("the server's pace replaces the defaults", () => {
  const pace = { ...DEFAULT_PACE, retry_first_seconds: 0.1, retry_most_seconds: 0.5 };
  assert.deepEqual([0, 1, 2, 3, 4].map((attempt) => retryWait(attempt, pace, 0)),
    [50, 100, 200, 250, 250]);
});

test("a connection is given up after its count of heartbeats in a row with nothing heard", () => {
  const silence = new SilenceCount(3);
  assert.deepEqual([false, false, true, false, false].map((heard) => silence.beat(heard)),
    [false, false, false, false, false]);
  assert.equal(silence.beat(false), true); // the third silent beat in a row
});
