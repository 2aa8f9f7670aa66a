// A move assembled checker by checker from a typed board message (fibs_server/web/static/play.js).
//
// fixtures/boards.json holds real `board` messages: made once by a throwaway script that set
// positions and dice on a rules.match.Match and called protocol.web_events.board, then
// checked against events.schema.json. So their legal_plays are the server's own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as play from "../../../fibs_server/web/static/play.js";

const BOARDS = JSON.parse(readFileSync(new URL("./fixtures/boards.json", import.meta.url)));
const WITH_PLAYS = Object.entries(BOARDS).filter(([, board]) => board.legal_plays.length > 0);

const step = (from, to, die) => ({ from, to, die });
const pairs = (steps) => steps.map(({ from, to }) => [from, to]);
const sorted = (values) => [...values].sort((a, b) => a - b);

// Every sequence of offered steps, followed to its end.
function everyWalk(board, steps = [], walks = []) {
  const next = play.singleSteps(board, steps);
  if (next.length === 0) walks.push(steps);
  for (const offered of next) everyWalk(board, [...steps, offered], walks);
  return walks;
}

test("the dice of a roll: four of a double, none without a roll", () => {
  assert.deepEqual(play.diceOf(BOARDS.opening_6_5_as_O), [6, 5]);
  assert.deepEqual(play.diceOf(BOARDS.double_3_3), [3, 3, 3, 3]);
  assert.deepEqual(play.diceOf(BOARDS.opponent_to_roll), []);
  assert.deepEqual(play.diceLeft(BOARDS.double_3_3, [step(24, 21, 3)]), [3, 3, 3]);
});

for (const [name, board] of WITH_PLAYS) {
  test(`${name}: each legal play is accepted step by step and ends complete`, () => {
    for (const legal of board.legal_plays) {
      const steps = play.stepsOfPlay(board, legal);
      assert.ok(steps, `refused ${JSON.stringify(legal)}`);
      assert.deepEqual(pairs(steps), legal);
      assert.ok(play.isComplete(board, steps));
      assert.deepEqual(play.singleSteps(board, steps), []);
    }
  });

  test(`${name}: every offered step leads to a legal play, and every legal play is offered`, () => {
    const legal = play.legalResults(board);
    const reached = new Set();
    for (const steps of everyWalk(board)) {
      assert.ok(play.isComplete(board, steps), `dead end ${JSON.stringify(pairs(steps))}`);
      reached.add(play.resultKey(board, steps));
    }
    assert.deepEqual(reached, legal);
  });
}

test("each destination's steps are offered one by one, from a movable point", () => {
  for (const [, board] of WITH_PLAYS) {
    for (const from of play.movablePoints(board, [])) {
      for (const { to, steps } of play.destinations(board, [], from)) {
        let made = [];
        for (const next of steps) {
          assert.ok(play.singleSteps(board, made).some((s) => s.from === next.from && s.to === next.to && s.die === next.die));
          made = [...made, next];
        }
        assert.equal(steps[0].from, from);
        assert.equal(steps.at(-1).to, to);
      }
    }
  }
});

test("the opening 6-5: what can move and where", () => {
  const board = BOARDS.opening_6_5_as_O;
  // Not 6: its 5 lands on the opponent's 24-point (our 1) and its 6 would bear off.
  assert.deepEqual(sorted(play.movablePoints(board, [])), [8, 13, 24]);
  const from24 = play.destinations(board, [], 24);
  // Not 19, the opponent's 6-point; 13 takes both dice, by 18.
  assert.deepEqual(sorted(from24.map((d) => d.to)), [13, 18]);
  assert.deepEqual(from24.find((d) => d.to === 13).steps, [step(24, 18, 6), step(18, 13, 5)]);
  const after = [step(24, 18, 6)];
  assert.deepEqual(play.diceLeft(board, after), [5]);
  assert.deepEqual(sorted(play.destinations(board, after, 18).map((d) => d.to)), [13]);
  assert.equal(play.isComplete(board, after), false);
  assert.equal(play.isComplete(board, [...after, step(18, 13, 5)]), true);
});

test("two ways to one point: the larger die first", () => {
  // 4-1 from 8 to 3: by 4 or by 7, both open.
  const to3 = play.destinations(BOARDS.hit_blot, [], 8).find((d) => d.to === 3);
  assert.deepEqual(to3.steps, [step(8, 4, 4), step(4, 3, 1)]);
});

test("a double moves four times, one checker as far as its landings are open", () => {
  const board = BOARDS.double_3_3;
  // 24 -> 21 -> 18 -> 15; 12 is the opponent's 13-point (5 checkers).
  const from24 = play.destinations(board, [], 24);
  assert.deepEqual(sorted(from24.map((d) => d.to)), [15, 18, 21]);
  assert.equal(from24.find((d) => d.to === 15).steps.length, 3);
  const steps = [step(24, 21, 3), step(21, 18, 3), step(13, 10, 3), step(13, 10, 3)];
  assert.ok(play.isComplete(board, steps));
  assert.deepEqual(play.movablePoints(board, steps), []);
});

test("from the bar: enter first, and not on a point the opponent holds", () => {
  const board = BOARDS.bar_entry_blocked_6;
  assert.deepEqual(play.singleSteps(board, []), [step(25, 22, 3)]);
  assert.deepEqual(play.destinations(board, [], 13), []);
  assert.deepEqual(sorted(play.movablePoints(board, [step(25, 22, 3)])), [8, 13, 22, 24]);
  const twice = BOARDS.double_from_bar;
  assert.deepEqual(play.movablePoints(twice, []), [25]);
  assert.deepEqual(play.movablePoints(twice, [step(25, 23, 2)]), [25]);
});

test("bearing off: a larger die only from the highest point", () => {
  const board = BOARDS.bear_off_high_die; // 6-4 with 5 5 4 2 2 2 1 1 1 1
  const offered = play.singleSteps(board, []).map(({ from, to, die }) => `${from}-${to}/${die}`);
  assert.deepEqual(offered.sort(), ["4-0/4", "5-0/6", "5-1/4"]);
  const race = BOARDS.hypergammon_race; // 3 checkers a side
  assert.deepEqual(sorted(play.movablePoints(race, [])), [1, 2, 3]);
});

test("a hit puts the blot on the opponent's bar", () => {
  const board = BOARDS.hit_blot;
  const { mine, theirs } = play.positionAfter(board, [step(24, 20, 4)]);
  assert.equal(mine[20], 1);
  assert.equal(theirs[20], 0);
  assert.equal(theirs[0], 1);
  assert.notEqual(play.resultKey(board, [step(24, 20, 4)]), play.resultKey(board, []));
});

test("one legal play, only the larger die, or none", () => {
  assert.deepEqual(play.forcedPlay(BOARDS.forced_single_step), [step(3, 0, 4)]);
  assert.deepEqual(play.forcedPlay(BOARDS.larger_die_rule), [step(24, 18, 6)]);
  // The 1 alone could be played too, but the rules want the 6.
  assert.deepEqual(play.singleSteps(BOARDS.larger_die_rule, []), [step(24, 18, 6)]);
  assert.equal(play.forcedPlay(BOARDS.opening_6_5_as_O), null);
  assert.equal(play.cannotMove(BOARDS.closed_out), true);
  for (const [, board] of WITH_PLAYS) assert.equal(play.cannotMove(board), false);
  assert.equal(play.cannotMove(BOARDS.opponent_to_roll), false);
  assert.equal(play.isComplete(BOARDS.closed_out, []), false);
});

test("a step the server's plays never take is not offered", () => {
  // 6-5: 13-7 then 7-2 is a legal 11 in one checker's pips, and it is a legal play...
  const board = BOARDS.opening_6_5_as_O;
  assert.ok(play.stepsOfPlay(board, [[13, 7], [7, 2]]));
  // ...but a step that is no die is nothing the roll can do.
  assert.equal(play.stepsOfPlay(board, [[13, 9], [9, 2]]), null);
});

// FIBS's `move` takes absolute point numbers (rules/board/notation.py, Colour.absolute: O's own
// numbering is the absolute one, X's own p is 25 - p) and one from-to pair per die
// (parse_move counts the pairs against the dice used), so a running 6-5 goes as two steps.
// The typed board numbers from the player's side whatever its colour: X's are turned round.
test("the move command in FIBS's absolute numbers, one pair per die", () => {
  const run = [step(24, 18, 6), step(18, 13, 5)];
  assert.equal(play.moveCommand(BOARDS.opening_6_5_as_O, run), "move 24-18 18-13");
  assert.equal(play.moveCommand(BOARDS.opening_6_5_as_X, run), "move 1-7 7-12");
  assert.equal(BOARDS.bar_entry_blocked_6.player.colour, "X");
  assert.equal(play.moveCommand(BOARDS.bar_entry_blocked_6, [step(25, 22, 3), step(8, 2, 6)]),
    "move bar-3 17-23");
  assert.equal(play.moveCommand(BOARDS.bear_off_high_die, [step(5, 0, 6), step(4, 0, 4)]),
    "move 20-off 21-off");
});

test("undo takes back the last step and leaves the steps as they were", () => {
  const steps = Object.freeze([step(24, 18, 6), step(18, 13, 5)]);
  assert.deepEqual(play.undoLast(steps), [step(24, 18, 6)]);
  assert.equal(steps.length, 2);
  assert.deepEqual(play.undoLast([]), []);
});
