// The board of a typed board message as SVG text (fibs_server/web/static/board_view.js), read
// back with regular expressions: node has no DOM. Fixtures: see play.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { boardSvg, escapeText } from "../../../fibs_server/web/static/board_view.js";

const BOARDS = JSON.parse(readFileSync(new URL("./fixtures/boards.json", import.meta.url)));

// Each data-point group's text, by point.
function groups(svg) {
  const found = new Map();
  for (const [, point, body] of svg.matchAll(/<g class="point[^"]*" data-point="(\d+)"[^>]*>(.*?)<\/g>/g)) {
    found.set(Number(point), body);
  }
  return found;
}

function groupTag(svg, point) {
  return svg.match(new RegExp(`<g [^>]*data-point="${point}"[^>]*>`))[0];
}

const count = (text, pattern) => (text.match(pattern) ?? []).length;
// A stack over five shows five checkers and the number.
function checkers(body, whose) {
  const shown = count(body, new RegExp(`class="checker ${whose}"`, "g"));
  const number = body.match(new RegExp(`class="count ${whose}"[^>]*>(\\d+)<`));
  return number ? Number(number[1]) : shown;
}

test("26 point groups, each with its hit area, numbered with the player's own numbers", () => {
  const points = groups(boardSvg(BOARDS.opening_6_5_as_O));
  assert.deepEqual([...points.keys()].sort((a, b) => a - b), Array.from({ length: 26 }, (_, i) => i));
  for (const body of points.values()) assert.equal(count(body, /class="hit-area"/g), 1);
  for (let p = 1; p <= 24; p += 1) assert.match(points.get(p), new RegExp(`class="number"[^>]*>${p}<`));
});

test("the checkers on each point are the board's after the steps", () => {
  const board = BOARDS.hit_blot;
  const steps = [{ from: 24, to: 20, die: 4 }, { from: 24, to: 23, die: 1 }];
  const points = groups(boardSvg(board, { steps }));
  const mine = [board.player.off, ...board.player.points, board.player.bar];
  mine[24] -= 2; mine[20] += 1; mine[23] += 1;
  const theirs = [...board.opponent.points];
  theirs[20 - 1] = 0; // the blot on 20 was hit
  for (let p = 1; p <= 24; p += 1) {
    assert.equal(checkers(points.get(p), "mine"), mine[p], `mine on ${p}`);
    assert.equal(checkers(points.get(p), "theirs"), theirs[p - 1], `theirs on ${p}`);
  }
  assert.equal(checkers(points.get(6), "mine"), 5);
  const svg = boardSvg(board, { steps });
  const opponentBar = svg.match(/<g class="bar theirs[^>]*>(.*?)<\/g>/)[1];
  assert.equal(checkers(opponentBar, "theirs"), 1);
});

test("the bar and the tray hold the player's checkers", () => {
  const onBar = groups(boardSvg(BOARDS.double_from_bar));
  assert.equal(checkers(onBar.get(25), "mine"), 2);
  const race = BOARDS.bear_off_high_die;
  const off = groups(boardSvg(race, { steps: [{ from: 5, to: 0, die: 6 }] }));
  assert.equal(count(off.get(0), /class="checker mine slice"/g), race.player.off + 1);
});

// Point 1 is bottom right and 24 top right, whichever colour the player has.
test("drawn from the player's side for both colours", () => {
  for (const board of [BOARDS.opening_6_5_as_O, BOARDS.opening_6_5_as_X]) {
    const svg = boardSvg(board);
    const area = (p) => svg.match(new RegExp(`data-point="${p}"[^>]*><rect class="hit-area" x="([\\d.]+)" y="([\\d.]+)"`)).slice(1).map(Number);
    const [x1, y1] = area(1);
    const [x12] = area(12);
    const [x13, y13] = area(13);
    const [x24, y24] = area(24);
    assert.ok(y1 > y13 && y1 > y24, "1 at the bottom, 13 and 24 at the top");
    assert.ok(x1 > x12 && x24 > x13, "1 and 24 at the right");
    assert.equal(x1, x24);
    assert.equal(x12, x13);
    assert.match(groupTag(svg, 24), /aria-label="Point 24: 2 of your checkers"/);
    assert.match(groupTag(svg, 1), /aria-label="Point 1: 2 of the opponent&#39;s checkers"/);
    assert.match(groupTag(svg, 13), /aria-label="Point 13: 5 of your checkers"/);
  }
});

test("selected, destinations, movable and the last move are marked", () => {
  const svg = boardSvg(BOARDS.opening_6_5_as_O, {
    selected: 13, destinations: [8, 7], movable: [13, 24], lastMove: [[1, 5], [19, 25]],
  });
  assert.match(groupTag(svg, 13), /class="point selected movable"/);
  assert.match(groupTag(svg, 8), /class="point destination"/);
  assert.match(groupTag(svg, 7), /class="point destination"/);
  assert.match(groupTag(svg, 1), /class="point last-from"/);
  assert.match(groupTag(svg, 5), /class="point last-to"/);
  // The opponent's 25 is its off: marked on its tray, not on the player's bar.
  assert.doesNotMatch(groupTag(svg, 25), /last/);
  assert.match(svg, /<g class="tray theirs last-to"/);
});

test("the dice: a double as four, used ones dimmed, the opponent's apart", () => {
  const board = BOARDS.double_3_3;
  const svg = boardSvg(board, { steps: [{ from: 24, to: 21, die: 3 }] });
  const dice = [...svg.matchAll(/<g class="die mine( used)?" data-die="3" data-side="player"/g)];
  assert.equal(dice.length, 4);
  assert.equal(dice.filter((die) => die[1]).length, 1);
  const opening = boardSvg(BOARDS.opening_6_5_as_O, { steps: [{ from: 24, to: 18, die: 6 }] });
  assert.match(opening, /class="die mine used" data-die="6"/);
  assert.match(opening, /class="die mine" data-die="5"/);
  assert.match(opening, /aria-label="Die 6, used"/);
  const waiting = boardSvg(BOARDS.opponent_to_roll);
  assert.equal(count(waiting, /class="die /g), 0);
});

test("the cube: its value and its owner's side; none in the Crawford game", () => {
  const opening = boardSvg(BOARDS.opening_6_5_as_O);
  assert.match(opening, /<g class="cube centred" role="img" aria-label="Cube 64, in the middle">/);
  const owned = boardSvg({ ...BOARDS.opening_6_5_as_O, cube: { value: 4, owner: "opponent", in_game: true } });
  assert.match(owned, /<g class="cube opponent"[^>]*aria-label="Cube 4, the opponent&#39;s">.*?>4<\/text>/);
  const crawford = boardSvg(BOARDS.opponent_to_roll);
  assert.doesNotMatch(crawford, /class="cube/);
  assert.match(crawford, /5-point match · Crawford game/);
});

test("a double offered: the cube at its new value in the half of the side that answers", () => {
  const offered = (by) => boardSvg({ ...BOARDS.opponent_to_roll, phase: "double_offered",
    crawford: { rule: true, crawford_game: false, post_crawford: false },
    cube: { value: 2, owner: "player", in_game: true },
    offer: { kind: "double", by, cube: 4, redouble: 0 } });
  const drawn = (svg) => svg.match(/<g class="cube offered" role="img" aria-label="Cube offered at 4"><rect x="([\d.]+)"[^>]*\/><text [^>]*>4<\/text><\/g>/);
  const toMe = drawn(offered("opponent"));
  const toThem = drawn(offered("player"));
  assert.ok(toMe && toThem);
  assert.ok(Number(toMe[1]) > 4 + 6 * 24 + 24, "in the player's half, right of the bar");
  assert.ok(Number(toThem[1]) < 4 + 6 * 24, "in the opponent's half, left of the bar");
  assert.match(offered("opponent"), /<g class="cube player"[^>]*>.*?>2<\/text>/); // the cube as it is
  assert.doesNotMatch(boardSvg(BOARDS.opening_6_5_as_O), /cube offered/);
});

test("names, scores, pips, clocks, match length", () => {
  const board = BOARDS.opponent_to_roll;
  const svg = boardSvg(board, { clocks: { player: "0:27", opponent: null } });
  assert.match(svg, /class="caption player"[^>]*>alice · score 4 · pips 166 · <tspan class="clock" data-clock="player">0:27<\/tspan></);
  assert.match(svg, /class="caption opponent"[^>]*>▶ bob · score 3 · pips 167</);
  const unlimited = boardSvg({ ...board, match_length: null });
  assert.match(unlimited, /unlimited match/);
});

test("a hostile name is escaped", () => {
  const board = BOARDS.opening_6_5_as_O;
  const hostile = `<script>alert("x")</script>&'`;
  const svg = boardSvg({ ...board, opponent: { ...board.opponent, name: hostile } });
  assert.ok(!svg.includes("<script>"));
  assert.ok(svg.includes(escapeText(hostile)));
  assert.equal(escapeText(hostile), "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
});

test("every word comes from the labels, escaped", () => {
  const asked = new Set();
  const labels = (key, values) => {
    asked.add(key);
    return `«${key}${values?.point ?? ""}<>»`;
  };
  const svg = boardSvg({ ...BOARDS.double_from_bar, crawford: { rule: true, crawford_game: true, post_crawford: false } }, { labels });
  for (const key of ["board", "point", "bar", "opponentBar", "off", "opponentOff", "die", "cube", "pips", "score", "matchLength", "crawford"]) {
    assert.ok(asked.has(key), key);
  }
  assert.match(groupTag(svg, 7), /aria-label="«point7&lt;&gt;»"/);
  assert.ok(!svg.includes("<>"));
  assert.doesNotMatch(svg, /Point |pips |-point match|Die |Cube |Crawford game/);
});
