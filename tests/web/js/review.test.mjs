// The review of a finished match (fibs_server/web/static/review.js).
//
// fixtures/review.json is a real match and its real analysis: a 3-point match the server's
// bots played (rules Match(3, SeededDice(13)), tests/bots/helpers.play_bots at INTERMEDIATE
// with random.Random(13): two games, cube actions, a resignation), analysed by
// bots.analysis.analyse_match at CHEAPEST_PLIES, as /api/matches/<id> (public_reads.match_games,
// players alice and bob) and /api/matches/<id>/analysis give them. fixtures/positions.json
// holds 12 of its decisions' Position IDs (the opening, three with a checker on a bar, two
// with checkers borne off, six more at random) with the sides rules/board/position.py decodes
// (Position.from_position_id: `decider` is its checkers[0], the side on roll), which
// tests/bots/test_engine.py checks against gnubg's own IDs. Both were made once by a
// throwaway script; they are data, not code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  applyPlay, decisionText, decodePositionId, equityGraphSvg, playAsSeen, reviewSteps,
  scaleNotes, summaryRows, toBoardMessage, viewerOf,
} from "../../../fibs_server/web/static/review.js";
import { setLanguage, t } from "../../../fibs_server/web/static/i18n.js";

const fixture = (name) => JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url)));
const POSITIONS = fixture("positions.json");
const { match: MATCH, analysis: ANALYSIS } = fixture("review.json");

// One side's opening checkers in its own numbering: 2 on 24, 5 on 13, 3 on 8, 5 on 6.
const OPENING = Array.from({ length: 25 }, (_, i) => ({ 23: 2, 12: 5, 7: 3, 5: 5 })[i] ?? 0);

function side(counts) {
  return Array.from({ length: 25 }, (_, i) => counts[i + 1] ?? 0); // by own point, 25 the bar
}

await setLanguage("en"); // the words the tests read

test("the opening position's ID", () => {
  assert.deepEqual(decodePositionId("4HPwATDgc/ABMA"), { decider: OPENING, other: OPENING });
});

test("Position IDs from a real analysis decode as the server decodes them", () => {
  assert.equal(POSITIONS.length, 12);
  for (const { position_id: id, decider, other } of POSITIONS) {
    assert.deepEqual(decodePositionId(id), { decider, other }, id);
  }
  assert.ok(POSITIONS.some(({ decider, other }) => decider[24] + other[24] > 0));
});

test("what is not a Position ID is refused", () => {
  for (const bad of ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////", 7]) {
    assert.throws(() => decodePositionId(bad), /not a Position ID/, String(bad));
  }
});

test("a play as O and as X: FIBS's absolute numbers are O's own, X's 25 - own", () => {
  const opening = { decider: OPENING, other: OPENING };
  const asO = applyPlay(opening, "24-18 13-11", "O");
  const asX = applyPlay(opening, "1-7 12-14", "X");
  assert.deepEqual(asO, asX);
  assert.deepEqual(asO.decider, side({ 24: 1, 18: 1, 13: 4, 11: 1, 8: 3, 6: 5 }));
  assert.deepEqual(asO.other, OPENING);
  assert.deepEqual(applyPlay(opening, "", "O"), opening); // no legal play
});

test("a hit sends the other side's checker to its bar; checkers enter and bear off", () => {
  // The other side's blot on its own 3, the decider's 22; the decider on the bar.
  const before = { decider: side({ 25: 1, 6: 2, 1: 1 }), other: side({ 3: 1, 20: 2 }) };
  const after = applyPlay(before, "bar-22 1-off", "O");
  assert.deepEqual(after.decider, side({ 22: 1, 6: 2 }));
  assert.deepEqual(after.other, side({ 25: 1, 20: 2 }));
  assert.throws(() => applyPlay(before, "6-5", "O"), /not a play here/); // 5 is the other's
  assert.throws(() => applyPlay(before, "9-3", "O"), /not a play here/); // no checker on 9
});

test("each play leads to the position the next decision was judged in", () => {
  const { steps } = reviewSteps(MATCH, ANALYSIS);
  const moves = steps.filter((step) => step.kind === "move");
  let checked = 0;
  moves.forEach((step, i) => {
    const next = moves[i + 1];
    if (!next || next.game !== step.game) return;
    const seen = next.player === step.player ? step.afterPlayed
      : { decider: step.afterPlayed.other, other: step.afterPlayed.decider };
    assert.deepEqual(seen, next.before, `game ${step.game} turn ${step.turn}`);
    checked += 1;
  });
  assert.equal(checked, moves.length - MATCH.games.length);
});

test("review steps: one per decision, the best play shown, the cube followed", () => {
  const { steps, series } = reviewSteps(MATCH, ANALYSIS);
  assert.equal(steps.length, ANALYSIS.decisions.length);
  assert.equal(series.length, steps.length);
  const first = steps[0];
  assert.deepEqual([first.game, first.turn, first.name, first.kind, first.colour],
    [1, 1, "bob", "move", MATCH.games[0].x_player === 1 ? "X" : "O"]);
  assert.equal(first.played, "24-18 18-16");
  assert.equal(first.best, "24-18 13-11");
  assert.equal(first.skill, "doubtful");
  assert.notDeepEqual(first.afterPlayed, first.afterBest);
  // Game 2: bob doubles, alice takes and owns the cube at 2.
  const take = steps.findIndex((step) => step.game === 2 && step.kind === "take");
  assert.equal(steps[take].name, "alice");
  assert.equal(steps[take + 1].cubeOwner, 0);
  const cubeStep = steps.find((step) => step.kind === "double");
  assert.deepEqual(cubeStep.afterPlayed, cubeStep.before);
  // The series: player 0's side, and the errors so far.
  for (const [i, point] of series.entries()) {
    const decision = ANALYSIS.decisions[i];
    assert.equal(point.equity, decision.player === 0 ? decision.played_equity : -decision.played_equity);
  }
  const total = (player) => ANALYSIS.decisions.filter((d) => d.player === player)
    .reduce((sum, d) => sum + d.error, 0);
  assert.deepEqual(series.at(-1).lost.map((lost) => lost.toFixed(9)),
    [total(0).toFixed(9), total(1).toFixed(9)]);
});

test("the equity graph marks each doubtful play, error and blunder", () => {
  const { series } = reviewSteps(MATCH, ANALYSIS);
  const svg = equityGraphSvg(series, ["alice", "<bob>"], t);
  const marked = series.filter((point) => point.skill !== "none").length;
  assert.ok(marked > 0);
  assert.equal(svg.split('class="mark ').length - 1, marked);
  assert.equal(svg.split('class="game-break"').length - 1, MATCH.games.length - 1);
  assert.ok(svg.includes("&lt;bob&gt; down") && !svg.includes("<bob>"));
  const invented = [{ ...series[0], skill: "very bad", error: 0.2, name: "<x>", played: "8-5 6-5",
    best: "13-10 13-12", seenAs: "O" }, { ...series[1], skill: "bad" }];
  const marks = equityGraphSvg(invented, ["a", "b"], t);
  assert.ok(marks.includes('class="mark blunder"') && marks.includes('class="mark error"'));
  assert.ok(marks.includes(`<title>game ${invented[0].game}, &lt;x&gt;: 8/5 6/5 (best 13/10 13/12, -0.200)</title>`));
  // Seen by X, the same play in X's numbers.
  assert.ok(equityGraphSvg([{ ...invented[0], seenAs: "X" }], ["a", "b"], t)
    .includes("&lt;x&gt;: 17/20 19/20 (best 12/15 12/13, -0.200)"));
  assert.ok(equityGraphSvg([], ["a", "b"], t).includes("No decisions to show."));
});

test("the players' summary rows", async () => {
  const [alice, bob] = summaryRows(ANALYSIS, MATCH.players, t);
  assert.deepEqual(alice, {
    name: "alice", unforcedDecisions: 31, errorRate: "7.2", checkerErrorRate: "10.7",
    cubeErrorRate: "0.0", pr: "3.6", rating: "Expert", luck: "-1.479",
    doubtful: 0, errors: 0, blunders: 0,
  });
  assert.equal(bob.rating, "Advanced");
  assert.equal(bob.luck, "+0.745");
  await setLanguage("es"); // gnubg's words through the catalogues
  assert.deepEqual(summaryRows(ANALYSIS, MATCH.players, t).map((row) => row.rating),
    ["Experto", "Avanzado"]);
  await setLanguage("en");
});

test("the summary says its scale and depth, and marks a player the judge cannot see", () => {
  const [scale] = scaleNotes(ANALYSIS, [false, false], MATCH.players, t);
  assert.equal(scale.slice(0, scale.indexOf(".")),
    `Judged by bgsage at ${ANALYSIS.plies}-ply (gnubg's ${ANALYSIS.plies - 1}-ply)`);
  assert.ok(scale.includes("gnubg's scale") && scale.includes("XG's scale"));
  assert.equal(scaleNotes(ANALYSIS, [false, false], MATCH.players, t).length, 1);
  assert.deepEqual(scaleNotes(ANALYSIS, [false, true], MATCH.players, t).slice(1), [
    "bob: below the judge's resolution (2.0 mEMG): played at the analysis's own depth: "
    + "errors below its resolution are not seen."]);
});

test("a review position as the typed board, from either side", () => {
  const { steps } = reviewSteps(MATCH, ANALYSIS);
  const first = steps[0]; // bob on roll in the opening position
  const board = toBoardMessage(first.before, MATCH.players, first, first.player);
  assert.equal(board.type, "board");
  assert.deepEqual([board.turn, board.phase, board.player.name, board.opponent.name],
    ["player", "move", "bob", "alice"]);
  assert.deepEqual(board.player.dice, [6, 2]);
  const points = (counts) => Array.from({ length: 24 }, (_, i) => counts[i + 1] ?? 0);
  assert.deepEqual(board.player.points, points({ 24: 2, 13: 5, 8: 3, 6: 5 }));
  assert.deepEqual(board.opponent.points, points({ 1: 2, 12: 5, 17: 3, 19: 5 }));
  const seenByAlice = toBoardMessage(first.afterPlayed, MATCH.players, first, 0);
  assert.deepEqual([seenByAlice.turn, seenByAlice.player.name], ["opponent", "alice"]);
  // bob's 24-18 18-16, in alice's numbering his checker went from her 1 to her 9.
  assert.deepEqual(seenByAlice.opponent.points, points({ 1: 1, 9: 1, 12: 5, 17: 3, 19: 5 }));
  assert.equal(seenByAlice.opponent.pips, 167 - 8);
  for (const step of steps) {
    for (const viewer of [0, 1]) {
      const shown = toBoardMessage(step.afterPlayed, MATCH.players, step, viewer);
      for (const half of [shown.player, shown.opponent]) {
        assert.equal(half.points.reduce((a, b) => a + b, 0) + half.bar + half.off, 15);
      }
    }
  }
});

test("a play in the viewer's numbers: O's own are FIBS's absolute ones, X's 25 - them", async () => {
  assert.equal(playAsSeen("17-20 19-20", "X"), "8/5 6/5");
  assert.equal(playAsSeen("17-20 19-20", "O"), "17/20 19/20");
  assert.equal(playAsSeen("bar-22 6-off", "O"), "bar/22 6/off");
  assert.equal(playAsSeen("bar-22 6-off", "X"), "bar/3 19/off");
  assert.equal(decisionText("move", "", "O", t), "no play");
  assert.equal(decisionText("double", "no double", "O", t), "no double");
  await setLanguage("es");
  assert.equal(decisionText("take", "take", "O", t), "aceptar");
  await setLanguage("en");
  assert.equal(viewerOf(MATCH, "BOB"), 1);
  assert.equal(viewerOf(MATCH, "carol"), 0);
});

// The mover's checkers that a shown play ("8/5 6/5") takes from and puts on each of the
// viewer's points (index: the point, 0 off, 25 the bar).
function countedSteps(shown) {
  const change = new Array(26).fill(0);
  const index = (word) => (word === "bar" ? 25 : word === "off" ? 0 : Number(word));
  for (const step of shown.split(" ")) {
    const [from, to] = step.split("/").map(index);
    change[from] -= 1;
    change[to] += 1;
  }
  return change;
}

test("a review is seen by one player throughout, and its words number the board's points", () => {
  for (const viewer of [0, 1]) {
    const { steps, series } = reviewSteps(MATCH, ANALYSIS, viewer);
    let moves = 0;
    for (const [i, step] of steps.entries()) {
      const before = toBoardMessage(step.before, MATCH.players, step, viewer);
      // The board never turns: the viewer at the bottom, whoever decides.
      assert.deepEqual([before.player.name, before.opponent.name],
        [MATCH.players[viewer], MATCH.players[1 - viewer]]);
      assert.equal(before.turn, step.player === viewer ? "player" : "opponent");
      assert.equal(series[i].seenAs, step.seenAs);
      if (step.kind !== "move" || !step.played) continue;
      // What the text says moved is what moved on the board, point by point.
      const after = toBoardMessage(step.afterPlayed, MATCH.players, step, viewer);
      const side = step.player === viewer ? "player" : "opponent";
      const change = countedSteps(decisionText(step.kind, step.played, step.seenAs, t));
      for (let point = 1; point <= 24; point += 1) {
        assert.equal(after[side].points[point - 1] - before[side].points[point - 1], change[point],
          `viewer ${viewer}, decision ${i + 1} (${step.played}), point ${point}`);
      }
      assert.equal(after[side].bar - before[side].bar, change[25]);
      assert.equal(after[side].off - before[side].off, change[0]);
      moves += 1;
    }
    assert.ok(moves > 40, `${moves} plays checked`);
  }
  // bob's opening 6-2 (O in game 1), as alice (X) and as bob see it.
  const first = (viewer) => reviewSteps(MATCH, ANALYSIS, viewer).steps[0];
  assert.equal(decisionText("move", first(0).played, first(0).seenAs, t), "1/7 7/9");
  assert.equal(decisionText("move", first(1).played, first(1).seenAs, t), "24/18 18/16");
});
