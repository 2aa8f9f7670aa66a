// The end of a match's sentences and its rematch (fibs_server/web/static/match_end.js); the
// module draws into the page, so the DOM it looks up is stood in for.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.document = { getElementById: () => ({}) };
const { endLines, rematchCommand, signedChange } = await import("../../../fibs_server/web/static/match_end.js");
const { inviteWords } = await import("../../../fibs_server/web/static/ui.js");

const said = (key, values) => `${key} ${JSON.stringify(values)}`;

test("a rematch is invited on the match's terms, a clock only with a length", () => {
  assert.equal(inviteWords(5, null), "5");
  assert.equal(inviteWords(7, { variant: "standard", lower_die_starts: false, cube: true,
    rated: true, turn_seconds: null }), "7");
  assert.equal(inviteWords(3, { variant: "nackgammon", lower_die_starts: true, cube: false,
    rated: false, turn_seconds: 30 }), "3 nackgammon lowstart nocube unrated timer 30");
  assert.equal(inviteWords(null, { variant: "portes", rated: true, turn_seconds: 60 }), "unlimited portes");
});

test("a rematch: a bot's match started again as the page starts one, others invited", () => {
  const standard = { variant: "standard", lower_die_starts: false, cube: true, turn_seconds: null };
  assert.equal(rematchCommand("bot_beginner", 1, { terms: standard, rated: false }),
    "bot bot_beginner 1 unrated");
  assert.equal(rematchCommand("bot_expert", null, { terms: standard, rated: true }),
    "bot bot_expert unlimited");
  // A bot invited to a variant or a clock: only an invitation carries those.
  assert.equal(rematchCommand("bot_expert", 3, { terms: { ...standard, turn_seconds: 30 }, rated: true }),
    "invite bot_expert 3 timer 30");
  assert.equal(rematchCommand("bob", 3, { terms: { ...standard, variant: "nackgammon" }, rated: false }),
    "invite bob 3 nackgammon unrated");
  assert.equal(rematchCommand("bob", 5, null), "invite bob 5");
});

test("a rating's change carries its sign", () => {
  assert.equal(signedChange(12.3456), "+12.35");
  assert.equal(signedChange(-3.1), "-3.10");
  assert.equal(signedChange(0), "±0.00");
});

test("a rated match ends with both ratings, an unrated one says none changed", () => {
  const rated = endLines({ winner: "opponent", length: 5, score: { player: 2, opponent: 5 },
    ratings: { player: { rating: 1490.5, change: -9.5, experience: 12 },
      opponent: { rating: 1609.5, change: 9.5, experience: 40 } } }, "bob", said);
  assert.equal(rated.result, 'end.lost {"name":"bob"}');
  assert.equal(rated.score,
    'end.score {"player":2,"opponent":5,"name":"bob","match":"match.points {\\"length\\":5}"}');
  assert.deepEqual(rated.ratings, [
    'end.rating_player {"name":"bob","rating":"1490.50","change":"-9.50","experience":12}',
    'end.rating_opponent {"name":"bob","rating":"1609.50","change":"+9.50","experience":40}']);
  const unrated = endLines({ winner: "player", length: null, score: { player: 3, opponent: 1 },
    ratings: null }, "bot_expert", said);
  assert.equal(unrated.result, 'end.won {"name":"bot_expert"}');
  assert.equal(unrated.score,
    'end.score {"player":3,"opponent":1,"name":"bot_expert","match":"match.unlimited {\\"length\\":null}"}');
  assert.deepEqual(unrated.ratings, ["end.unrated {}"]);
});

test("the analysis's figures come with the player's own first, in the page's words", async () => {
  const { analysisLines } = await import("../../../fibs_server/web/static/match_end.js");
  const players = [{ name: "bob", error_rate: 8.06, pr: 4.03, rating: "Advanced" },
    { name: "alice", error_rate: 12.5, pr: 6.25, rating: "No such words" }];
  assert.deepEqual(analysisLines(players, "alice", said), [
    'end.errors_player {"name":"alice","error_rate":"12.5","pr":"6.3","rating":"No such words"}',
    'end.errors_opponent {"name":"bob","error_rate":"8.1","pr":"4.0","rating":"rating_words.advanced undefined"}']);
  assert.deepEqual(analysisLines(null, "alice", said), ["end.not_judged {}"]);
});
