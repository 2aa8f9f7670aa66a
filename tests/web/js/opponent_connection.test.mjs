// What the page says above the board of a match whose opponent is away
// (fibs_server/web/static/opponent_connection.js): a page that lost its connection, a node out
// of reach, each until it is back, and nothing once another match starts.
import { test } from "node:test";
import assert from "node:assert/strict";

const notice = { hidden: true, lines: [], replaceChildren(...children) { this.lines = children.map((c) => c.textContent); } };
globalThis.document = { getElementById: () => notice, createElement: () => ({}) };
const { HANDLERS } = await import("../../../fibs_server/web/static/opponent_connection.js");
const { setLanguage } = await import("../../../fibs_server/web/static/i18n.js");
await setLanguage("en");

test("an opponent out of reach is said until their node is heard from again", () => {
  HANDLERS.player_reach({ type: "player_reach", name: "bob", reachable: false });
  assert.equal(notice.hidden, false);
  assert.deepEqual(notice.lines, [
    "bob is out of reach (the server's nodes lost touch): your match waits, and nobody's clock runs."]);
  HANDLERS.player_reach({ type: "player_reach", name: "bob", reachable: true });
  assert.equal(notice.hidden, true);
  assert.deepEqual(notice.lines, []);
});

test("a dropped page and a node out of reach are both said, and a new match clears them", () => {
  HANDLERS.player_connection({ type: "player_connection", name: "bob", connected: false });
  HANDLERS.player_reach({ type: "player_reach", name: "bob", reachable: false });
  assert.equal(notice.lines.length, 2);
  assert.match(notice.lines[0], /^bob's connection dropped/);
  HANDLERS.match_started({ type: "match_started" });
  assert.equal(notice.hidden, true);
  assert.deepEqual(notice.lines, []);
});
