// The Tournaments tab: the list (`tournaments`), one tournament as a whole (`tournament`,
// sent again at each change of one the page follows), sign-up, and the create form. A
// round's match comes as any invitation does (room.js), with its Join.
import { t } from "./i18n.js";
import { $, button, offerVariants } from "./ui.js";
import { send, session } from "./session.js";
import {
  arenaSecondsLeft, arenaTable, bracketLayout, countdown, createCommand, flightBrackets, pairingWords,
  scheduleWords, startWords, swissTable, termsWords,
} from "./tournament_view.js";

const NEXT_CREATED = "next created"; // followed: the next tournament this user creates
const state = {
  list: [], // entries of the list, newest first
  followed: null, // the id of the tournament shown (as the server follows it), or NEXT_CREATED
  shown: null, // its latest tournament message
  shownAt: 0, // when it came (performance.now(), ms): its countdown counts from then
  ticking: null, // the interval that moves the countdown on, while there is one
};

export const HANDLERS = {
  hello: () => offerVariants($("tournament-variant")), // the same words after `create` as after `invite`
  tournaments: (message) => { state.list = message.tournaments; renderList(); },
  tournament: (message) => {
    updateListEntry(message);
    if (state.followed === message.id
        || (state.followed === NEXT_CREATED && message.creator === session.me)) {
      state.followed = message.id;
      state.shown = message;
      state.shownAt = performance.now();
      renderShown();
    }
    renderList();
  },
};

export function reset() {
  state.list = [];
  state.followed = null;
  state.shown = null;
  render();
}

export function render() {
  renderList();
  renderShown();
}

// The tab opened: the list as it is now.
export function opened() {
  send("tournament list");
}

function updateListEntry(message) {
  const entry = Object.fromEntries(Object.entries(message).filter(([key]) => key in LISTED));
  const index = state.list.findIndex((listed) => listed.id === message.id);
  if (index >= 0) state.list[index] = entry;
  else state.list.unshift(entry);
}
// The fields of a list entry (the rest of a `tournament` message is the whole tournament).
const LISTED = Object.fromEntries(["id", "format", "status", "creator", "entered", "cap", "winner",
  "side_flights", "swiss_rounds", "starts_at", "every", "arena_minutes", "terms"].map((key) => [key, true]));

function entered(tournament) {
  return tournament.entrants?.some((entrant) => entrant.name === session.me) ?? false;
}

function formatWords(tournament) {
  if (tournament.format === "arena") return t("tournament.arena_minutes", { minutes: tournament.arena_minutes });
  if (tournament.format === "swiss") return t("tournament.swiss_rounds", { rounds: tournament.swiss_rounds });
  return tournament.side_flights.length
    ? `${t("tournament.format_knockout")} ${flightsWords(tournament.side_flights)}` : t("tournament.format_knockout");
}

function statusWords(tournament) {
  return tournament.winner ? t("tournament.won_by", { name: tournament.winner })
    : t(`tournament.status_${tournament.status}`);
}

// --- the list --------------------------------------------------------------------------------

function renderList() {
  const body = $("tournament-list").querySelector("tbody");
  body.replaceChildren();
  $("tournament-none").hidden = state.list.length > 0;
  for (const tournament of state.list) {
    const row = body.insertRow();
    row.dataset.id = String(tournament.id);
    for (const value of [String(tournament.id), formatWords(tournament), statusWords(tournament),
      t("tournament.players_of", { entered: tournament.entered, cap: tournament.cap }),
      [termsWords(tournament.terms), scheduleWords(tournament),
        t("tournament.by", { name: tournament.creator })].filter(Boolean).join("; ")]) {
      row.insertCell().textContent = value;
    }
    const actions = row.insertCell();
    actions.append(button(t("tournament.show"), () => follow(tournament.id, "show")));
    const known = state.shown?.id === tournament.id ? state.shown : null;
    if (tournament.status === "signup" && !(known && entered(known))) {
      actions.append(button(t("tournament.join"), () => follow(tournament.id, "join")));
    }
  }
}

// `tournament show|join <id>`: the server sends the tournament, and its changes after.
function follow(id, verb) {
  state.followed = id;
  send(`tournament ${verb} ${id}`);
}

// --- one tournament --------------------------------------------------------------------------

function renderShown() {
  const shown = state.shown;
  $("tournament-detail").hidden = shown === null;
  renderSummary();
  if (shown === null) return;
  $("tournament-title").textContent = t("tournament.title", { id: shown.id, format: formatWords(shown),
    name: shown.creator });
  renderActions(shown);
  $("tournament-entrants").textContent = shown.entrants.length === 0 ? t("tournament.no_entrants")
    : t("tournament.entrants", { entered: shown.entrants.length, cap: shown.cap,
      names: shown.entrants.map((entrant) => `${entrant.name} (${Math.round(entrant.rating)})`
        + (entrant.withdrawn ? ` ${t("tournament.withdrawn")}` : "")).join(", ") });
  renderBracket(shown);
  renderFlights(shown);
  renderTable(shown);
  renderArena(shown);
  $("tournament-rounds-title").textContent = t(shown.format === "arena" ? "tournament.matches_title"
    : "tournament.rounds_title");
  const item = (text) => {
    const entry = document.createElement("li");
    entry.textContent = text;
    return entry;
  };
  const roundLines = (rounds, flight) => rounds.map((round) => item(`${flight
    ? t("tournament.flight_round", { flight: t(`tournament.flight_${flight}`), round: round.number, of: round.round })
    : t("tournament.round_name", { round: round.number })}: ${round.pairings.map(pairingWords).join("; ")}`));
  // An arena's rounds are its pairings made at once: one list of its matches, latest last.
  $("tournament-rounds").replaceChildren(...(shown.format === "arena"
    ? shown.rounds.flatMap((round) => round.pairings).map((pairing) => item(pairingWords(pairing)))
    : roundLines(shown.rounds, null)),
  ...(shown.flights ?? []).flatMap((flight) => roundLines(flight.rounds, flight.flight)));
}

// "with a consolation flight", "with consolation and last-chance flights"
function flightsWords(sideFlights) {
  const named = sideFlights.map((flight) => t(`tournament.flight_${flight}`));
  return named.length === 1 ? t("tournament.with_flight", { flight: named[0] })
    : t("tournament.with_flights", { first: named.slice(0, -1).join(", "), last: named.at(-1) });
}

// The terms and state, and in sign-up the start, its countdown moved on each second.
function renderSummary() {
  const shown = state.shown;
  // The start's countdown in sign-up; a running arena's time left.
  const counting = shown !== null && ((shown.status === "signup" && shown.start.in_seconds !== null)
    || shown.ends_in_seconds !== null);
  if (counting && state.ticking === null) state.ticking = setInterval(renderSummary, 1000);
  if (!counting && state.ticking !== null) {
    clearInterval(state.ticking);
    state.ticking = null;
  }
  const clock = $("tournament-clock");
  const left = shown === null ? null : arenaSecondsLeft(shown, performance.now() - state.shownAt);
  clock.hidden = left === null;
  if (left !== null) clock.textContent = t("tournament.time_left", { clock: countdown(left) });
  if (shown === null) return;
  const facts = [statusWords(shown), termsWords(shown.terms)];
  if (shown.current_round !== null) {
    // A side flight's rounds may follow the main flight's last: no "of".
    facts.push(shown.side_flights.length ? t("tournament.round_name", { round: shown.current_round })
      : t("tournament.round_of", { round: shown.current_round, rounds: shown.round_count }));
  }
  if (shown.status === "signup") facts.push(startWords(shown, (performance.now() - state.shownAt) / 1000));
  if (shown.every !== null) facts.push(t(`tournament.every_${shown.every}`));
  $("tournament-summary").textContent = facts.join(" · ");
}

function renderActions(shown) {
  const actions = [];
  const open = shown.status === "signup" || shown.status === "running";
  if (shown.status === "signup" && session.me && !session.visitor) {
    actions.push(entered(shown)
      ? button(t("tournament.leave"), () => send(`tournament leave ${shown.id}`))
      : button(t("tournament.join"), () => send(`tournament join ${shown.id}`)));
  }
  if (open && shown.creator === session.me) {
    actions.push(button(t("tournament.cancel"), () => send(`tournament cancel ${shown.id}`)));
  }
  actions.push(button(t("tournament.close"), () => {
    state.followed = state.shown = null;
    render();
  }));
  $("tournament-actions").replaceChildren(...actions);
}

// A knockout: a column per round, the winners advancing; the champion last.
function renderBracket(shown) {
  const layout = bracketLayout(shown);
  const holder = $("tournament-bracket");
  holder.replaceChildren();
  holder.hidden = layout === null;
  if (layout !== null) drawBracket(holder, layout);
}

// Each side flight: its title (its players), then its own bracket and winner.
function renderFlights(shown) {
  const holder = $("tournament-flights");
  holder.replaceChildren();
  for (const flight of flightBrackets(shown)) {
    const section = document.createElement("section");
    section.className = "tournament-flight";
    section.dataset.flight = flight.flight;
    const head = document.createElement("h3");
    const name = t(`tournament.flight_${flight.flight}`);
    head.textContent = flight.players === null ? t("tournament.flight_to_come", { flight: name })
      : !flight.played ? t("tournament.flight_not_played", { flight: name })
        : t("tournament.flight_title", { flight: name, count: flight.players.length });
    section.append(head);
    if (flight.layout !== null) {
      const bracket = document.createElement("div");
      bracket.className = "bracket scroll-x";
      drawBracket(bracket, flight.layout);
      section.append(bracket);
    }
    holder.append(section);
  }
}

function drawBracket(holder, layout) {
  for (const column of layout.columns) {
    const round = document.createElement("section");
    round.className = "bracket-round";
    const head = document.createElement("h3");
    head.textContent = column.number === layout.columns.length ? t("tournament.final", { length: column.length })
      : t("tournament.round", { round: column.number, length: column.length });
    round.append(head);
    for (const match of column.matches) round.append(matchBox(match));
    holder.append(round);
  }
  const champion = document.createElement("section");
  champion.className = "bracket-round bracket-champion";
  champion.textContent = layout.champion ? t("tournament.champion", { name: layout.champion })
    : t("tournament.champion_to_come");
  holder.append(champion);
}

function matchBox(match) {
  const box = document.createElement("div");
  box.className = "bracket-match";
  box.setAttribute("role", "group");
  const names = match.slots.map((entry) => entry?.name ?? t("tournament.to_come"));
  box.setAttribute("aria-label", match.bye ? t("tournament.bye", { name: names[0] })
    : t("tournament.versus", { first: names[0], second: names[1] }));
  match.slots.forEach((entry, index) => {
    const line = document.createElement("div");
    line.className = `slot${entry?.won ? " won" : ""}${entry?.lost ? " lost" : ""}`;
    if (entry === null) {
      line.textContent = index === 1 && match.bye ? t("tournament.bye_slot") : t("tournament.to_come");
      line.classList.add(index === 1 && match.bye ? "bye" : "unknown");
    } else {
      line.textContent = entry.seed ? `${entry.seed}. ${entry.name}` : entry.name;
      if (entry.won && match.forfeit) line.title = t("tournament.by_forfeit");
    }
    box.append(line);
  });
  return box;
}

// A Swiss: the standings with the tie-breaks, and each round's result of each player.
function renderTable(shown) {
  const table = $("tournament-standings");
  table.replaceChildren();
  table.hidden = shown.format !== "swiss";
  if (table.hidden) return;
  const rows = swissTable(shown);
  const caption = table.createCaption();
  caption.textContent = t("tournament.standings");
  headRow(table, [...["tournament.rank", "tournament.player", "tournament.score", "tournament.buchholz",
    "tournament.sonneborn_berger", "tournament.rating"].map((key) => t(key)),
  ...shown.rounds.map((round) => t("tournament.round_short", { round: round.number }))]);
  const body = table.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    line.dataset.name = row.name;
    const name = row.withdrawn ? `${row.name} (${t("tournament.withdrawn")})` : row.name;
    const score = row.forfeit_wins ? `${row.score} (${t("tournament.forfeit_wins", { count: row.forfeit_wins })})`
      : row.score;
    for (const value of [row.place ?? "", name, score, row.buchholz ?? "", row.sonneborn_berger ?? "",
      Math.round(row.rating)]) {
      line.insertCell().textContent = String(value);
    }
    for (const result of row.results) {
      const words = t(`tournament.result_${result.outcome}`, { name: result.opponent ?? "" });
      // A result decided by a no-show or a withdrawal says so.
      line.insertCell().textContent = result.forfeit ? `${words} (${t("tournament.by_forfeit")})` : words;
    }
  }
}

// An arena: the standings with each player's points, streak (on fire from two wins in a
// row) and matches played.
function renderArena(shown) {
  const table = $("tournament-arena");
  table.replaceChildren();
  const rows = arenaTable(shown);
  table.hidden = rows === null;
  if (rows === null) return;
  table.createCaption().textContent = t("tournament.standings");
  headRow(table, ["tournament.rank", "tournament.player", "tournament.points_col",
    "tournament.streak", "tournament.games"].map((key) => t(key)));
  const body = table.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    line.dataset.name = row.name;
    const name = row.withdrawn ? `${row.name} (${t("tournament.withdrawn")})` : row.name;
    const streak = row.onFire ? `${row.streak} ${t("tournament.on_fire")}` : String(row.streak);
    for (const value of [row.place, name, row.score, streak, row.games]) {
      line.insertCell().textContent = String(value);
    }
  }
}

// --- the create form -------------------------------------------------------------------------

function formValues() {
  return {
    format: $("tournament-format").value,
    minutes: $("tournament-minutes").value,
    rounds: $("tournament-rounds-count").value,
    length: $("tournament-length").value,
    final: $("tournament-final").value,
    lengths: $("tournament-lengths").value,
    variant: $("tournament-variant").value,
    crawford: $("tournament-crawford").checked,
    timer: $("tournament-timer").value,
    rated: $("tournament-rated").checked,
    startIn: $("tournament-start-in").value,
    startAt: $("tournament-start-at").value,
    every: $("tournament-every").value,
    startWhen: $("tournament-start-when").value,
    cap: $("tournament-cap").value,
    bots: $("tournament-bots").checked,
    consolation: $("tournament-consolation").checked,
    lastChance: $("tournament-last-chance").checked,
  };
}


function formatChanged() {
  const format = $("tournament-format").value;
  $("tournament-rounds-label").hidden = format !== "swiss";
  $("tournament-flights-label").hidden = format !== "knockout";
  $("tournament-minutes-label").hidden = format !== "arena";
  // An arena plays every match to one length.
  $("tournament-final-label").hidden = $("tournament-lengths-label").hidden = format === "arena";
}
$("tournament-format").addEventListener("change", formatChanged);
formatChanged();

$("tournament-form").addEventListener("submit", (event) => {
  event.preventDefault();
  state.followed = NEXT_CREATED;
  send(createCommand(formValues()));
});
$("tournaments-refresh").addEventListener("click", () => send("tournament list"));

// A table's head: one column heading for each text.
function headRow(table, texts) {
  const head = table.createTHead().insertRow();
  for (const text of texts) {
    const cell = document.createElement("th");
    cell.scope = "col";
    cell.textContent = text;
    head.append(cell);
  }
}
