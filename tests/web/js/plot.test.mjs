// The rating pictures (fibs_server/web/static/plot.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ratingPlotSvg, ratingsListSvg } from "../../../fibs_server/web/static/plot.js";
import { setLanguage, t } from "../../../fibs_server/web/static/i18n.js";

await setLanguage("en"); // the words the tests read

test("a rating over time: the first rating before, a point after each match", () => {
  const svg = ratingPlotSvg("alice", [
    { finished_at: 1_700_000_000, before: 1500, after: 1510.5 },
    { finished_at: 1_700_086_400, before: 1510.5, after: 1502.25 },
  ], t);
  assert.equal(svg.split("<circle").length - 1, 3);
  assert.ok(svg.includes("alice: 1502.25 after 2 rated matches (last 2023-11-15)"));
  assert.ok(svg.includes("<title>1510.50</title>"));
});

test("no rated match yet; names escaped", () => {
  const svg = ratingPlotSvg("<x>", [], t);
  assert.ok(svg.includes("&lt;x&gt; has no rated matches yet."));
  assert.ok(!svg.includes("<x>"));
});

test("the ratings list: a bar a player, one's own marked", () => {
  const svg = ratingsListSvg([
    { rank: 1, name: "bob", rating: 1600, experience: 80 },
    { rank: 2, name: "alice", rating: 1523.1, experience: 77 },
  ], t, "alice");
  assert.equal(svg.split("<rect").length - 1, 2);
  assert.ok(svg.includes('class="rating-row own" data-name="alice"'));
  assert.ok(svg.includes("1. bob") && svg.includes("1523.10 (77)"));
  assert.ok(ratingsListSvg([], t).includes("No one is on the list yet"));
});
