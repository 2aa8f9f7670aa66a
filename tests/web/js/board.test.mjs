// The board as the viewer sees it, the clicked moves and the SVG (fibs_server/web/static/board.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseBoard } from "../../../fibs_server/web/static/clip.js";
import * as boards from "../../../fibs_server/web/static/board.js";
import { OPENING } from "./boards.mjs";

// The same moment as the opponent (X) sees it (docs/BOARDS.md, the opening example).
const OPENING_AS_X = "board:You:alice:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:6:2:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:0:0";

const asO = parseBoard(OPENING);
const asX = parseBoard(OPENING_AS_X);

function boardWith(changes) {
  return { ...asO, ...changes };
}

test("each side's checkers by the viewer's own points", () => {
  for (const board of [asO, asX]) {
    const { mine, theirs } = boards.position(board);
    assert.deepEqual([mine[24], mine[13], mine[8], mine[6]], [2, 5, 3, 5]);
    assert.deepEqual([theirs[1], theirs[12], theirs[17], theirs[19]], [2, 5, 3, 5]);
    assert.equal(mine.reduce((a, b) => a + b), 15);
  }
});

test("pips, turn, cube owner", () => {
  assert.deepEqual(boards.pipCounts(asO), { player: 167, opponent: 167 });
  assert.equal(boards.whoseTurn(asO), "player");
  assert.equal(boards.whoseTurn(asX), "opponent");
  assert.equal(boards.whoseTurn(boardWith({ turn: 0 })), null);
  assert.equal(boards.cubeOwner(asO), null);
  assert.equal(boards.cubeOwner(boardWith({ cube: 2, playerMayDouble: true, opponentMayDouble: false })), "player");
  assert.equal(boards.cubeOwner(boardWith({ cube: 4, playerMayDouble: false, opponentMayDouble: true })), "opponent");
  assert.equal(boards.cubeOwner(boardWith({ cube: 2, playerMayDouble: false, opponentMayDouble: false })), null);
  assert.equal(boards.isWatching(boardWith({ player: "alice" })), true);
});

test("clicks make steps with the larger die first, or the chosen one", () => {
  const first = boards.clickStep(asO, [], 24);
  assert.deepEqual(first, { from: 24, to: 18, die: 6 });
  assert.deepEqual(boards.clickStep(asO, [], 24, 2), { from: 24, to: 22, die: 2 });
  const second = boards.clickStep(asO, [first], 13);
  assert.deepEqual(second, { from: 13, to: 11, die: 2 });
  assert.equal(boards.clickStep(asO, [first, second], 6), null); // both dice used
  assert.equal(boards.moveCommand(asO, [first, second]), "move 24-18 13-11");
  assert.deepEqual(boards.diceLeft(asO, [first]), [2]);
});

test("X's own points are written in FIBS's absolute numbers", () => {
  const mine = boardWith({ colour: -1, points: asX.points.map((n) => n) });
  const steps = [{ from: 24, to: 18, die: 6 }, { from: 25, to: 20, die: 5 }, { from: 3, to: 0, die: 3 }];
  assert.equal(boards.moveCommand(mine, steps), "move 1-7 bar-5 22-off");
});

test("a double is four moves", () => {
  const board = boardWith({ playerDice: [3, 3], canMove: 4 });
  assert.deepEqual(boards.rolledDice(board), [3, 3, 3, 3]);
  let steps = [];
  for (const from of [24, 21, 13, 13]) steps = [...steps, boards.clickStep(board, steps, from)];
  assert.equal(boards.moveCommand(board, steps), "move 24-21 21-18 13-10 13-10");
  assert.equal(boards.clickStep(board, steps, 8), null);
});

test("what a click obviously cannot do", () => {
  // 6 from 24 lands on 18: blocked when the opponent holds it.
  const points = [...asO.points];
  points[18] = -2;
  assert.deepEqual(boards.clickStep(boardWith({ points }), [], 24), { from: 24, to: 22, die: 2 });
  assert.equal(boards.clickStep(asO, [], 23), null); // no checker there
  // On the bar: enter first.
  const onBar = boardWith({ playerBar: 1, points: asO.points.map((n, i) => (i === 24 ? 1 : n)) });
  assert.equal(boards.clickStep(onBar, [], 13), null);
  // The 6 would enter on their 6-point (own 19), which they hold: the 2 enters.
  assert.deepEqual(boards.clickStep(onBar, [], 25), { from: 25, to: 23, die: 2 });
  // Bearing off only with every checker home, a higher die only from the highest point.
  assert.equal(boards.stepWith(boards.position(asO), 6, 6), null);
  const home = new Array(26).fill(0);
  home[6] = 1; home[2] = 14;
  const race = boardWith({ points: home, playerDice: [6, 5] });
  assert.deepEqual(boards.clickStep(race, [], 6), { from: 6, to: 0, die: 6 });
  assert.equal(boards.clickStep(race, [], 2, 6), null); // a checker waits on 6
});

test("a step onto a blot hits it", () => {
  const points = [...asO.points];
  points[18] = -1;
  const board = boardWith({ points });
  const step = boards.clickStep(board, [], 24);
  const after = boards.positionAfter(board, [step]);
  assert.equal(after.mine[18], 1);
  assert.equal(after.theirs[18], 0);
  assert.equal(after.theirs[0], 1);
});

test("the SVG: a group per point, the dice, the pips; names escaped", () => {
  const svg = boards.boardSvg(boardWith({ opponent: "<img src=x onerror=alert(1)>" }));
  for (let p = 0; p <= 25; p += 1) assert.ok(svg.includes(`data-point="${p}"`), `point ${p}`);
  assert.ok(svg.includes('data-die="6"') && svg.includes('data-die="2"'));
  assert.ok(svg.includes("pips 167"));
  assert.ok(svg.includes("3-point match"));
  assert.ok(!svg.includes("<img"));
  assert.ok(svg.includes("&lt;img src=x onerror=alert(1)&gt;"));
  // A clicked step shows before it is sent: one checker fewer on 24, one on 18.
  const moved = boards.boardSvg(asO, [{ from: 24, to: 18, die: 6 }]);
  const checkersOn = (text, p) => text.split(`data-point="${p}"`)[1].split("</g>")[0].split('class="checker mine"').length - 1;
  assert.equal(checkersOn(moved, 24), 1);
  assert.equal(checkersOn(moved, 18), 1);
  assert.ok(moved.includes('class="die mine used" data-die="6"'));
});

test("escapeText", () => {
  assert.equal(boards.escapeText(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
});
