// A tournament as the page lays it out, from its `tournament` message (docs/WEB-PROTOCOL.md,
// "Tournaments"): a knockout's bracket, a Swiss's table, the words of its terms, and the
// `tournament create` command of the page's form. Pure: no DOM (tournaments.js draws).
import { t } from "./i18n.js";
import { shownVariant } from "./variants.js";

// --- a knockout's bracket --------------------------------------------------------------------

// The bracket: a column per round, first to final, each with its matches in bracket order
// (the winners of neighbouring matches meet next). Rounds not paired yet are filled from the
// results so far: a winner advances at once, an undecided place is null. Null in sign-up.
// Each match: {slots: [top, bottom], bye, decided, forfeit}; a slot {name, seed, won, lost}
// or null (not known yet); a bye's bottom slot is null with `bye` true.
export function bracketLayout(state) {
  if (state.format !== "knockout" || state.rounds.length === 0) return null;
  const seeds = new Map(state.entrants.map((entrant) => [entrant.name, entrant.seed]));
  const slot = (name, pairing) => (name === null ? null : {
    name, seed: seeds.get(name) ?? null,
    won: pairing.decided && pairing.winner === name,
    lost: pairing.decided && pairing.winner !== null && pairing.winner !== name,
  });
  const columns = [];
  for (let index = 0; index < state.round_count; index += 1) {
    const number = index + 1;
    const played = state.rounds.find((round) => round.number === number);
    let matches;
    if (played) {
      matches = played.pairings.map((pairing) => ({
        slots: [slot(pairing.first, pairing), slot(pairing.second, pairing)],
        bye: pairing.second === null, decided: pairing.decided, forfeit: pairing.forfeit,
      }));
    } else {
      const before = columns[index - 1].matches;
      matches = [];
      for (let pair = 0; pair < before.length; pair += 2) {
        const pending = { first: null, second: null, decided: false, winner: null };
        matches.push({
          slots: [slot(winnerOf(before[pair]), pending), slot(winnerOf(before[pair + 1]), pending)],
          bye: false, decided: false, forfeit: false,
        });
      }
    }
    columns.push({ number, length: played?.length ?? roundLength(state, number), matches });
  }
  return { columns, champion: state.winner ?? winnerOf(columns.at(-1)?.matches[0]) };
}

// A knockout's side flights (consolation, last chance), each as its own bracket laid out as
// the main one is, its rounds numbered as its own and counted back from its own final:
// {flight, players (seed order; null while not known), played (false: fewer than two, so
// none), layout (null until its first round is paired), winner}.
export function flightBrackets(state) {
  return (state.flights ?? []).map((flight) => ({
    flight: flight.flight,
    players: flight.players,
    played: flight.round_count !== 0,
    layout: flight.round_count ? bracketLayout({ ...state, rounds: flight.rounds,
      round_count: flight.round_count, winner: flight.winner }) : null,
    winner: flight.winner,
  }));
}

function winnerOf(match) {
  if (!match || !match.decided) return null;
  return match.slots.find((entry) => entry?.won)?.name ?? null;
}

// `lengths` are the last rounds', the final's last (the rounds before them play its first).
function roundLength(state, number) {
  const lengths = state.terms.lengths ?? [];
  if (lengths.length) return lengths[Math.max(0, lengths.length - 1 - (state.round_count - number))];
  return number === state.round_count ? state.terms.final_length : state.terms.length;
}

// --- a Swiss's table ---------------------------------------------------------------------------

export const RESULT_OUTCOMES = ["won", "lost", "bye", "none", "pending"];

// The standings in order of place (score, Buchholz, Sonneborn-Berger, rating: the server's
// ranking), each row with the player's result of every round: {round, opponent, outcome}, the
// outcome "won", "lost", "bye", "none" (neither showed) or "pending". In sign-up, the
// entrants by rating.
export function swissTable(state) {
  if (state.standings.length === 0) {
    return [...state.entrants].sort((a, b) => b.rating - a.rating || a.name.localeCompare(b.name))
      .map((entrant) => ({ place: null, name: entrant.name, score: 0, buchholz: null,
        sonneborn_berger: null, rating: entrant.rating, results: [] }));
  }
  return [...state.standings].sort((a, b) => a.place - b.place).map((row) => ({
    ...row,
    results: state.rounds.map((round) => resultOf(round, row.name)),
  }));
}

function resultOf(round, name) {
  const pairing = round.pairings.find((p) => p.first === name || p.second === name);
  if (!pairing) return { round: round.number, opponent: null, outcome: "pending" };
  const opponent = pairing.second === null ? null : pairing.first === name ? pairing.second : pairing.first;
  let outcome = "pending";
  if (pairing.second === null) outcome = "bye";
  else if (pairing.decided) outcome = pairing.winner === null ? "none" : pairing.winner === name ? "won" : "lost";
  return { round: round.number, opponent, outcome, forfeit: pairing.forfeit };
}

// --- an arena's table and clock -----------------------------------------------------------------

// The arena's standings in order of place (points, then fewer games, then rating: the
// server's ranking), each row {place, name, score, streak, onFire, games, withdrawn}: on
// fire from two wins in a row (the next win scores double).
export function arenaTable(state) {
  if (state.format !== "arena" || state.standings.length === 0) return null;
  return [...state.standings].sort((a, b) => a.place - b.place).map((row) => ({
    place: row.place, name: row.name, score: row.score, streak: row.streak ?? 0,
    onFire: (row.streak ?? 0) >= 2, games: row.games ?? 0, withdrawn: row.withdrawn,
  }));
}

// The seconds left of a running arena, `elapsedMs` after its message came: null when it has
// no clock (not an arena, or not running).
export function arenaSecondsLeft(state, elapsedMs) {
  if (state.ends_in_seconds === null || state.ends_in_seconds === undefined) return null;
  return Math.max(0, state.ends_in_seconds - elapsedMs / 1000);
}

// --- words ---------------------------------------------------------------------------------------

// "3-point matches (final 5), nackgammon, no Crawford, 60 s a turn, unrated"
export function termsWords(terms) {
  const words = [terms.lengths?.length ? t("tournament.points_by_round", { lengths: terms.lengths.join("-") })
    : terms.final_length === terms.length ? t("tournament.points", { length: terms.length })
      : t("tournament.points_final", { length: terms.length, final: terms.final_length })];
  words.push(...shownVariant(terms.variant));
  if (!terms.crawford) words.push(t("tournament.no_crawford"));
  words.push(terms.bank
    ? t(`terms.bank_${terms.bank.mode}`, { move: terms.bank.move_seconds, reserve: terms.bank.reserve_per_point })
    : t("terms.turn_seconds", { seconds: terms.turn_seconds }));
  if (!terms.rated) words.push(t("terms.unrated_match"));
  return words.join(", ");
}

// A pairing as the rounds list says it: "alice beats bob", "carol has a bye", ...
export function pairingWords(pairing) {
  if (pairing.second === null) return t("tournament.bye", { name: pairing.first });
  if (!pairing.decided) return t("tournament.versus", { first: pairing.first, second: pairing.second });
  if (pairing.winner === null) return t("tournament.neither_showed", { first: pairing.first, second: pairing.second });
  const loser = pairing.winner === pairing.first ? pairing.second : pairing.first;
  return t(pairing.forfeit ? "tournament.beats_by_forfeit" : "tournament.beats",
    { winner: pairing.winner, loser });
}

// --- the start and the recurrence ----------------------------------------------------------------

// A start time (Unix seconds) as the server's texts give it: "2026-12-24 20:00 UTC".
export function utcWords(seconds) {
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

// The time left before a start: "1:05:09", "9:30".
export function countdown(seconds) {
  const left = Math.max(0, Math.floor(seconds));
  const two = (value) => String(value).padStart(2, "0");
  const [hours, minutes] = [Math.floor(left / 3600), Math.floor((left % 3600) / 60)];
  return hours > 0 ? `${hours}:${two(minutes)}:${two(left % 60)}` : `${minutes}:${two(left % 60)}`;
}

// When a tournament of the list starts, and how often it comes back: "starts 2026-12-24
// 20:00 UTC, every day"; "" when it has neither.
export function scheduleWords(entry) {
  const words = [];
  if (entry.starts_at !== null && entry.status === "signup") {
    words.push(t("tournament.starts_on", { time: utcWords(entry.starts_at) }));
  }
  if (entry.every !== null) words.push(t(`tournament.every_${entry.every}`));
  return words.join(", ");
}

// The start of a tournament shown in sign-up, its countdown `secondsSince` the message came:
// "starts at 2026-12-24 20:00 UTC (in 9:30) or when 8 have joined".
export function startWords(state, secondsSince = 0) {
  const { start } = state;
  const words = [];
  if (start.in_seconds !== null) {
    const left = countdown(start.in_seconds - secondsSince);
    words.push(state.starts_at === null ? t("tournament.starts_in", { minutes: Math.ceil(start.in_seconds / 60) })
      : t("tournament.starts_at", { time: utcWords(state.starts_at), left }));
  }
  if (start.when !== null) words.push(t("tournament.starts_when", { count: start.when }));
  return words.join(` ${t("tournament.or")} `);
}

// --- the create form's command -----------------------------------------------------------------

// `tournament create ...` from the form's values (strings as the inputs hold them; the
// server checks the ranges and refuses in its own words).
export function createCommand(form) {
  const words = ["tournament", "create", form.format];
  const number = (value) => String(Math.round(Number(value)));
  const arena = form.format === "arena";
  if (arena) words.push(number(form.minutes)); // an arena's time; every match to `length`
  if (form.format === "swiss" && form.rounds) words.push("rounds", number(form.rounds));
  const lengths = arena ? [] : (form.lengths ?? "").split(/[\s,]+/).filter(Boolean).map(number);
  if (arena) words.push("length", number(form.length));
  else if (lengths.length) words.push("lengths", lengths.join(","));
  else {
    words.push("length", number(form.length));
    if (form.final && Number(form.final) !== Number(form.length)) words.push("final", number(form.final));
  }
  if (form.variant) words.push(form.variant);
  if (!form.crawford) words.push("nocrawford");
  // The clock: a turn timer's seconds, or a time bank's words ("bank 12 60").
  words.push(...(form.timer.startsWith("bank ") ? form.timer.split(" ") : ["timer", number(form.timer)]));
  if (!form.rated) words.push("unrated");
  if (form.startAt) words.push("at", form.startAt); // a time of day, UTC ("20:00")
  else if (form.startIn) words.push("in", number(form.startIn));
  if (form.every) words.push("every", form.every);
  if (form.startWhen) words.push("when", number(form.startWhen));
  words.push("cap", number(form.cap));
  if (form.bots) words.push("bots");
  // A knockout's side flights: `lastchance` brings the consolation it follows.
  if (form.format === "knockout" && form.lastChance) words.push("lastchance");
  else if (form.format === "knockout" && form.consolation) words.push("consolation");
  return words.join(" ");
}
