// The page's reads of the JSON API (fibs_server/web/static/api.js), with a stand-in fetch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, fetchJson } from "../../../fibs_server/web/static/api.js";

const answering = (status, body, headers = {}) => async () => new Response(body, { status, headers });

test("an answer is its JSON", async () => {
  assert.deepEqual(await fetchJson("/api/ratings", answering(200, '{"total": 0}')), { total: 0 });
});

test("a refusal says the API's error; a 429 how long to wait", async () => {
  await assert.rejects(fetchJson("/api/players/x", answering(404, '{"error": "No such player."}')),
    (error) => error instanceof ApiError && error.status === 404
      && error.message === "No such player." && error.retryAfter === null);
  await assert.rejects(fetchJson("/api/dice", answering(429, '{"error": "Too many."}', { "Retry-After": "7" })),
    (error) => error.status === 429 && error.retryAfter === 7 && error.message === "Too many.");
  // The HTTP port's own pacing answers in plain text.
  await assert.rejects(fetchJson("/api/dice", answering(429, "Too many requests from your address.")),
    (error) => error.retryAfter === 1 && error.message === "Too many requests from your address.");
});

test("a server out of reach", async () => {
  await assert.rejects(fetchJson("/api/dice", async () => { throw new TypeError("Failed to fetch"); }),
    (error) => error.status === 0 && /cannot be reached: Failed to fetch/.test(error.message));
});
