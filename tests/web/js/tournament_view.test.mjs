// A tournament laid out from its `tournament` message (fibs_server/web/static/tournament_view.js):
// a knockout's bracket, a Swiss's table, the words, the create form's command.
//
// fixtures/tournaments.json holds the server's own messages (tests/web/test_tournament_fixtures.py
// makes them from the pure rules and keeps the file equal to them): a knockout of six (seeds 1
// and 2 with byes) in round 1, in round 2 and won; the six with a consolation flight in round 3;
// a Swiss of five in its third round; a daily knockout in sign-up, ten minutes before its start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setLanguage } from "../../../fibs_server/web/static/i18n.js";
import { readFileSync } from "node:fs";
import {
  arenaSecondsLeft, arenaTable, bracketLayout, countdown, createCommand, flightBrackets, pairingWords,
  scheduleWords, startWords, swissTable, termsWords,
} from "../../../fibs_server/web/static/tournament_view.js";
import { learnVariants } from "../../../fibs_server/web/static/variants.js";

const STATES = JSON.parse(readFileSync(new URL("./fixtures/tournaments.json", import.meta.url)));
const names = (match) => match.slots.map((slot) => slot?.name ?? null);
const winners = (column) => column.matches.map((match) => match.slots.find((slot) => slot?.won)?.name ?? null);

await setLanguage("en"); // the words the tests read
// Two of the variants as the server's hello lists them: the default one, which no word chooses
// and the terms leave unsaid, and another.
learnVariants([
  { name: "standard", word: null, checkers_per_side: 15, cube: true, backgammons: true, opening_dice_played: true },
  { name: "nackgammon", word: "nack", checkers_per_side: 15, cube: true, backgammons: true, opening_dice_played: true },
]);

test("a bracket: a column per round; the byes the top seeds'; later rounds to come", () => {
  const layout = bracketLayout(STATES.knockout_round_one);
  assert.deepEqual(layout.columns.map((column) => [column.number, column.length, column.matches.length]),
    [[1, 3, 4], [2, 3, 2], [3, 5, 1]]);
  const byRound = bracketLayout({ ...STATES.knockout_round_one,
    terms: { ...STATES.knockout_round_one.terms, lengths: [9, 11] } });
  // A round paired says its own length; the rounds to come take the last rounds' lengths,
  // the final's last.
  assert.deepEqual(byRound.columns.map((column) => column.length), [3, 9, 11]);
  const first = layout.columns[0].matches;
  assert.deepEqual(first.map(names), [["alice", null], ["dave", "erin"], ["bob", null], ["carol", "frank"]]);
  assert.deepEqual(first.map((match) => match.bye), [true, false, true, false]);
  assert.deepEqual(first[0].slots[0], { name: "alice", seed: 1, won: true, lost: false });
  assert.deepEqual(first[3].slots.map((slot) => [slot.seed, slot.won, slot.lost]), [[3, false, true], [6, true, false]]);
  // The winners advance at once: alice and frank; dave v erin's place is still to come.
  assert.deepEqual(layout.columns[1].matches.map(names), [["alice", null], ["bob", "frank"]]);
  assert.ok(layout.columns[1].matches.every((match) => !match.decided));
  assert.deepEqual(layout.columns[2].matches.map(names), [[null, null]]);
  assert.equal(layout.champion, null);
});

test("a bracket in its second round, then won: winners advance to the champion", () => {
  const second = bracketLayout(STATES.knockout_round_two);
  assert.ok(second.columns[0].matches[1].forfeit);
  assert.deepEqual(winners(second.columns[1]), ["alice", null]);
  assert.deepEqual(second.columns[2].matches.map(names), [["alice", null]]);
  const won = bracketLayout(STATES.knockout_won);
  assert.deepEqual(won.columns.map(winners), [["alice", "erin", "bob", "frank"], ["alice", "bob"], ["alice"]]);
  assert.equal(won.champion, "alice");
});

test("no bracket for a Swiss, nor in sign-up", () => {
  assert.equal(bracketLayout(STATES.swiss_round_three), null);
  assert.equal(bracketLayout({ ...STATES.knockout_round_one, rounds: [], status: "signup" }), null);
});

test("a Swiss table: by place (score, Buchholz, SB), whatever the order it came in", () => {
  const state = STATES.swiss_round_three;
  const shuffled = { ...state, standings: [...state.standings].reverse() };
  const rows = swissTable(shuffled);
  assert.deepEqual(rows.map((row) => [row.place, row.name, row.score, row.buchholz]),
    [[1, "alice", 2, 3], [2, "erin", 2, 2], [3, "bob", 1, 5], [4, "carol", 1, 4], [5, "dave", 1, 3]]);
  assert.deepEqual(rows[0].results.map((result) => [result.round, result.opponent, result.outcome]),
    [[1, "carol", "won"], [2, "bob", "won"], [3, "dave", "pending"]]);
  assert.deepEqual(rows[1].results.map((result) => result.outcome), ["bye", "won", "pending"]);
  assert.deepEqual(rows[3].results.map((result) => result.outcome), ["lost", "lost", "bye"]);
});

test("a Swiss in sign-up: the entrants by rating, then name", () => {
  const rows = swissTable({ ...STATES.swiss_round_three, standings: [], rounds: [], entrants: [
    { name: "zoe", rating: 1500, seed: null }, { name: "amy", rating: 1500, seed: null },
    { name: "max", rating: 1600, seed: null }] });
  assert.deepEqual(rows.map((row) => row.name), ["max", "amy", "zoe"]);
});

test("the words of terms and pairings", () => {
  assert.equal(termsWords(STATES.knockout_won.terms), "3-point matches (final 5), 60 s a turn");
  assert.equal(termsWords({ length: 1, final_length: 1, variant: "nackgammon", crawford: false,
    turn_seconds: 30, rated: false }), "1-point matches, nackgammon, no Crawford, 30 s a turn, unrated");
  assert.equal(termsWords({ length: 5, final_length: 11, lengths: [5, 5, 7, 9, 11], variant: "standard",
    crawford: true, turn_seconds: 60, rated: true }), "5-5-7-9-11 points by round, 60 s a turn");
  const [bye, forfeit] = STATES.knockout_won.rounds[0].pairings;
  assert.equal(pairingWords(bye), "alice has a bye");
  assert.equal(pairingWords(forfeit), "erin beats dave by forfeit");
  assert.equal(pairingWords(STATES.knockout_round_two.rounds[1].pairings[1]), "bob v frank");
});

test("the create form's command: only what differs from the defaults where it can", () => {
  const form = { format: "knockout", rounds: "3", length: "3", final: "3", variant: "", crawford: true,
    timer: "60", rated: true, startIn: "", startWhen: "4", cap: "8", bots: false };
  assert.equal(createCommand(form), "tournament create knockout length 3 timer 60 when 4 cap 8");
  assert.equal(createCommand({ ...form, format: "swiss", rounds: "4", final: "5", variant: "nack",
    crawford: false, timer: "30", rated: false, startIn: "10", startWhen: "", bots: true }),
  "tournament create swiss rounds 4 length 3 final 5 nack nocrawford timer 30 unrated in 10 cap 8 bots");
  assert.equal(createCommand({ ...form, timer: "bank 12 60" }),
    "tournament create knockout length 3 bank 12 60 when 4 cap 8");
  assert.equal(createCommand({ ...form, lengths: " 5, 7 ,9" }),
    "tournament create knockout lengths 5,7,9 timer 60 when 4 cap 8");
  // The side flights: `lastchance` brings the consolation; a Swiss has none.
  assert.equal(createCommand({ ...form, consolation: true }),
    "tournament create knockout length 3 timer 60 when 4 cap 8 consolation");
  assert.equal(createCommand({ ...form, consolation: true, lastChance: true }),
    "tournament create knockout length 3 timer 60 when 4 cap 8 lastchance");
  assert.equal(createCommand({ ...form, format: "swiss", consolation: true }),
    "tournament create swiss rounds 3 length 3 timer 60 when 4 cap 8");
});

test("a consolation flight: its own bracket beside the main one, its byes the top seeds'", () => {
  const state = STATES.knockout_consolation;
  // The main bracket: the main flight's rounds only, the final to come.
  const main = bracketLayout(state);
  assert.deepEqual(main.columns.map(winners), [["alice", "erin", "bob", "frank"], ["alice", "frank"], [null]]);
  const [flight] = flightBrackets(state);
  assert.equal(flightBrackets(state).length, 1);
  // bob lost his first match (after a bye), carol and dave theirs in round 1: seeded as in
  // the main flight, bob has the bye; its rounds counted back from its own final (5 points).
  assert.deepEqual([flight.flight, flight.players, flight.played, flight.winner],
    ["consolation", ["bob", "carol", "dave"], true, null]);
  assert.deepEqual(flight.layout.columns.map((column) => [column.number, column.length]), [[1, 3], [2, 5]]);
  assert.deepEqual(flight.layout.columns[0].matches.map(names), [["bob", null], ["carol", "dave"]]);
  assert.deepEqual(flight.layout.columns[0].matches[0].slots[0], { name: "bob", seed: 2, won: true, lost: false });
  assert.deepEqual(flight.layout.columns[1].matches.map(names), [["bob", "carol"]]);
  assert.equal(flight.layout.champion, null);
  // Players not known yet, or too few to play: no bracket.
  const waiting = flightBrackets({ ...state, flights: [{ flight: "consolation", players: null,
    round_count: null, winner: null, rounds: [] }] });
  assert.deepEqual(waiting.map((entry) => [entry.players, entry.played, entry.layout]), [[null, true, null]]);
  const none = flightBrackets({ ...state, flights: [{ flight: "consolation", players: ["dave"],
    round_count: 0, winner: null, rounds: [] }] });
  assert.deepEqual(none.map((entry) => [entry.played, entry.layout]), [[false, null]]);
  assert.deepEqual(flightBrackets(STATES.knockout_won), []);
});

test("a scheduled, recurring tournament: its start time, a countdown, its recurrence", () => {
  const daily = STATES.daily_signup;
  assert.equal(scheduleWords(daily), "starts 2026-12-24 20:00 UTC, every day");
  assert.equal(startWords(daily), "starts at 2026-12-24 20:00 UTC (in 10:00)");
  // The countdown moves on from the message's in_seconds, not the page's clock against the
  // server's.
  assert.equal(startWords(daily, 90.4), "starts at 2026-12-24 20:00 UTC (in 8:29)");
  assert.equal(startWords({ ...daily, start: { in_seconds: 600, when: 6 } }, 700),
    "starts at 2026-12-24 20:00 UTC (in 0:00) or starts when 6 have joined");
  assert.deepEqual([countdown(3909), countdown(59), countdown(-3)], ["1:05:09", "0:59", "0:00"]);
  // Once it runs, the list says only that it comes again; a one-off says nothing.
  assert.equal(scheduleWords({ ...daily, status: "running" }), "every day");
  assert.equal(scheduleWords({ ...daily, starts_at: null, every: null }), "");
  assert.equal(scheduleWords(STATES.knockout_round_one), "");
});

test("the create form: a time of day and a recurrence", () => {
  const form = { format: "knockout", length: "1", final: "1", crawford: true, timer: "60",
    rated: true, startIn: "", startWhen: "", cap: "8", startAt: "20:00", every: "day" };
  assert.equal(createCommand(form), "tournament create knockout length 1 timer 60 at 20:00 every day cap 8");
  // `at` rather than `in` when both are given (the server takes one).
  assert.equal(createCommand({ ...form, startIn: "30", every: "" }),
    "tournament create knockout length 1 timer 60 at 20:00 cap 8");
});

test("an arena's table: points, wins in a row (on fire from two) and matches, by place", () => {
  const state = STATES.arena_running;
  const rows = arenaTable({ ...state, standings: [...state.standings].reverse() });
  assert.deepEqual(rows.map((row) => [row.place, row.name, row.score, row.streak, row.onFire, row.games]),
    [[1, "alice", 8, 3, true, 3], [2, "carol", 2, 0, false, 2], [3, "dave", 2, 0, false, 3],
      [4, "bob", 0, 0, false, 2]]);
  assert.equal(arenaTable(STATES.swiss_round_three), null);
  assert.equal(bracketLayout(state), null);
  // Its matches, latest last: carol v bob under way.
  assert.deepEqual(state.rounds.flatMap((round) => round.pairings).map(pairingWords).slice(-2),
    ["alice beats dave", "carol v bob"]);
});

test("an arena's clock counts down from the seconds its message gave, and stops at 0:00", () => {
  const state = STATES.arena_running;
  assert.equal(state.ends_in_seconds, 245);
  assert.equal(countdown(arenaSecondsLeft(state, 0)), "4:05");
  assert.equal(countdown(arenaSecondsLeft(state, 5500)), "3:59");
  assert.equal(countdown(arenaSecondsLeft(state, 300000)), "0:00");
  assert.equal(arenaSecondsLeft(STATES.swiss_round_three, 0), null);
});

test("the create form's command for an arena: its minutes and one length", () => {
  const form = { format: "arena", minutes: "30", rounds: "3", length: "1", final: "5",
    lengths: "5,7", variant: "", crawford: true, timer: "60", rated: true, startIn: "",
    startWhen: "8", cap: "16", bots: true };
  assert.equal(createCommand(form), "tournament create arena 30 length 1 timer 60 when 8 cap 16 bots");
});
