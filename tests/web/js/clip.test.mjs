// The page's reading of what the server says (fibs_server/web/static/clip.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { clockLabel, parseBoard, parseLine, splitMessage } from "../../../fibs_server/web/static/clip.js";

import { OPENING } from "./boards.mjs";

test("a message is whole lines and perhaps a prompt", () => {
  assert.deepEqual(splitMessage("a\r\nb\r\n"), { lines: ["a", "b"], prompt: null });
  assert.deepEqual(splitMessage("banner\r\nlogin: "), { lines: ["banner"], prompt: "login: " });
  assert.deepEqual(splitMessage("\r\nPlease retype your password: "),
    { lines: [""], prompt: "Please retype your password: " });
});

test("the login block's CLIP lines", () => {
  assert.deepEqual(parseLine("1 alice 1041253132 192.168.1.308"), { kind: "welcome", name: "alice" });
  const own = parseLine("2 alice 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 0 0 0 UTC");
  assert.equal(own.kind, "own info");
  assert.equal(own.toggles.moreboards, "1");
  assert.equal(own.toggles.rating, "3457.85");
  assert.deepEqual(["3", "4", "6"].map((l) => parseLine(l).kind), ["motd start", "motd end", "who end"]);
});

test("who lines, with - for none", () => {
  const { kind, user } = parseLine("5 bob alice - 1 0 1912.15 827 8 1040515752 10.0.0.5 web -");
  assert.equal(kind, "who");
  assert.deepEqual(user, { name: "bob", opponent: "alice", watching: null, ready: true,
    away: false, rating: 1912.15, experience: 827, client: "web" });
  assert.deepEqual(parseLine("8 bob bob drops connection."),
    { kind: "logout", name: "bob", text: "bob drops connection." });
});

test("chat: others' words name the speaker, the echoes of one's own do not (but a tell's)", () => {
  assert.deepEqual(parseLine("12 bob hello  there"),
    { kind: "chat", how: "says", name: "bob", text: "hello  there" });
  assert.deepEqual(parseLine("13 bob <b>hi</b>"),
    { kind: "chat", how: "shouts", name: "bob", text: "<b>hi</b>" });
  assert.deepEqual(parseLine("16 carol hi"), { kind: "chat", how: "you say", name: "carol", text: "hi" });
  assert.deepEqual(parseLine("17 hi all"), { kind: "chat", how: "you shout", name: null, text: "hi all" });
  assert.deepEqual(parseLine("15 carol nice"), { kind: "chat", how: "kibitzes", name: "carol", text: "nice" });
});

test("the sentences the page acts on", () => {
  assert.deepEqual(parseLine("bob wants to play a 5 point match with you."),
    { kind: "invited", from: "bob", match: "a 5 point match" });
  assert.deepEqual(parseLine("bob wants to play an unlimited match with you."),
    { kind: "invited", from: "bob", match: "an unlimited match" });
  assert.deepEqual(parseLine("bob wants to resume a saved match with you."),
    { kind: "invited", from: "bob", match: "resume a saved match" });
  assert.deepEqual(parseLine("Clock: bob has 27 seconds to answer the double."), { kind: "clock" });
  assert.deepEqual(parseLine("The match is played with: nackgammon, no cube, 30 s a turn."),
    { kind: "invitation terms", terms: "nackgammon, no cube, 30 s a turn" });
  assert.deepEqual(parseLine("** You invited bob to a 1 point match."),
    { kind: "you invited", to: "bob", match: "a 1 point match" });
  assert.deepEqual(parseLine("Starting a new game with bob."), { kind: "game starts", opponent: "bob" });
  assert.equal(parseLine("bob wants to resign. You will win 1 point. Type 'accept' or 'reject'.").kind,
    "resign offered");
  assert.deepEqual(parseLine("bob wins the 1 point match 1-0 ."), { kind: "match over", winner: "bob" });
  assert.deepEqual(parseLine("*    2 alice           1523.10     77"),
    { kind: "rating row", rank: 2, name: "alice", rating: 1523.1, experience: 77, own: true });
  assert.deepEqual(parseLine("You roll 3 and 1."), { kind: "text", text: "You roll 3 and 1." });
  assert.deepEqual(parseLine("5 too few"), { kind: "text", text: "5 too few" });
});

test("a board line's 52 fields, named", () => {
  const { kind, board } = parseLine(OPENING);
  assert.equal(kind, "board");
  assert.equal(board.player, "You");
  assert.equal(board.opponent, "someplayer");
  assert.equal(board.matchLength, 3);
  assert.deepEqual(board.points.slice(0, 7), [0, -2, 0, 0, 0, 0, 5]);
  assert.equal(board.points.length, 26);
  assert.deepEqual([board.turn, board.colour, board.direction], [1, 1, -1]);
  assert.deepEqual(board.playerDice, [6, 2]);
  assert.deepEqual(board.opponentDice, [0, 0]);
  assert.deepEqual([board.cube, board.playerMayDouble, board.opponentMayDouble, board.wasDoubled],
    [1, true, true, false]);
  assert.deepEqual([board.playerOff, board.opponentOff, board.playerBar, board.opponentBar], [0, 0, 0, 0]);
  assert.equal(board.canMove, 2);
  assert.equal(parseBoard(OPENING.replace(":3:0:0:", ":9999:0:0:")).matchLength, null);
});

test("a malformed board line is no board", () => {
  assert.equal(parseBoard(OPENING + ":0"), null);
  assert.equal(parseBoard(OPENING.replace(":6:2:", ":x:2:")), null);
  assert.equal(parseLine("board:garbage").kind, "text");
});

test("a timed match's clock is labelled for whoever must decide", () => {
  assert.equal(clockLabel({ side: "player", seconds: 30, decision: "move" }, 29.2, "bob"),
    "Your time to move: 30 s");
  assert.equal(clockLabel({ side: "opponent", seconds: 9, decision: "double_offered" }, 8.6, "bob"),
    "bob's time to answer the double: 9 s");
  assert.equal(clockLabel({ side: "player", seconds: 1, decision: "roll_or_double" }, -0.5, "bob"),
    "Your time to roll or double: 0 s");
});
