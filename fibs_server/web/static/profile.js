// A player's profile (rating over time, finished matches, dice) and the ratings list, from the
// read-only JSON API (docs/WEB-API.md); a finished match's review, step by step on the board,
// with its analysis where there is one.
import { fetchJson } from "./api.js";
import { boardSvg } from "./board_view.js";
import { diceVerdict } from "./fair_dice.js";
import { ratingPlotSvg, ratingsListSvg } from "./plot.js";
import * as review from "./review.js";
import { t } from "./i18n.js";
import { $, boardLabels, button, item, matchWords } from "./ui.js";
import { send } from "./session.js";
import { onReview } from "./match_end.js";

const HISTORY_PAGE = 20;
// The review's steps, seen by one of its players throughout (`viewer`, 0 or 1), until the
// board is turned to the other's side.
const reviewing = { match: null, analysis: null, steps: [], series: [], at: 0, names: null, viewer: 0 };

export function init() {
  // From the end of a match: the player's own profile, where a match not yet analysed says so.
  onReview(async (matchId, name) => {
    await showProfile(name);
    await openReview(matchId, name);
  });
  $("profile-form").addEventListener("submit", (event) => {
    event.preventDefault();
    showProfile($("history-name").value.trim());
  });
  $("show-ratings").addEventListener("click", showRatings);
  $("review-close").addEventListener("click", closeReview);
  $("review-first").addEventListener("click", () => reviewAt(0));
  $("review-previous").addEventListener("click", () => reviewAt(reviewing.at - 1));
  $("review-next").addEventListener("click", () => reviewAt(reviewing.at + 1));
  $("review-last").addEventListener("click", () => reviewAt(reviewing.steps.length - 1));
  $("review-next-error").addEventListener("click", () => {
    const next = reviewing.steps.findIndex((step, i) => i > reviewing.at && step.skill !== "none");
    if (next >= 0) reviewAt(next);
  });
  $("review-show-best").addEventListener("change", () => reviewAt(reviewing.at));
  $("review-turn").addEventListener("click", () => {
    seenBy(1 - reviewing.viewer);
    reviewAt(reviewing.at);
  });
  document.addEventListener("keydown", (event) => {
    if ($("review").hidden || event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight") reviewAt(reviewing.at + 1);
    if (event.key === "ArrowLeft") reviewAt(reviewing.at - 1);
  });
}

// What the API said, or a sentence for the page when it said no.
async function fetched(path) {
  try {
    return { ok: true, body: await fetchJson(path) };
  } catch (error) {
    const key = error.status === 404 ? "api.not_found" : error.status === 429 ? "api.too_many" : "api.failed";
    return { ok: false, text: t(key, { seconds: error.retryAfter ?? "" }) };
  }
}

export async function showProfile(name) {
  document.querySelector('#tabs [data-tab="profile"]').click();
  $("history-name").value = name;
  const encoded = encodeURIComponent(name);
  const [player, history, matches, dice] = await Promise.all([
    fetched(`/api/players/${encoded}`),
    fetched(`/api/rating-history?name=${encoded}`),
    fetched(`/api/players/${encoded}/matches?limit=${HISTORY_PAGE}`),
    fetched(`/api/dice?name=${encoded}`),
  ]);
  if (!player.ok) {
    $("profile").textContent = player.text;
    for (const id of ["rating-plot", "match-history", "dice-stats"]) $(id).replaceChildren();
    return;
  }
  const about = player.body;
  $("profile").textContent = t("profile.summary", {
    name: about.name, rating: about.rating.toFixed(2), experience: about.experience,
    matches: about.rated_matches, won: about.rated_matches_won,
    online: t(about.online ? "profile.online" : "profile.offline") });
  $("rating-plot").innerHTML = history.ok
    ? ratingPlotSvg(history.body.name, history.body.changes, t) : "";
  renderMatches(matches);
  renderDice(dice);
}

function renderMatches(matches) {
  if (!matches.ok) { $("match-history").textContent = matches.text; return; }
  const rows = matches.body.matches.map((match) => item(
    t("profile.match", { id: match.match_id, name: match.opponent,
      match: matchWords(match.length, null),
      // No winner: an abandoned match settled by both players' chances (docs/FAIRNESS.md).
      result: t(match.winner === null ? "profile.settled"
        : match.winner === matches.body.name ? "profile.won" : "profile.lost"),
      own: match.score[0], theirs: match.score[1] }) + " ",
    button(t(match.analysed ? "profile.review_analysed" : "profile.review"),
      () => openReview(match.match_id, matches.body.name))));
  $("match-history").replaceChildren(...(rows.length ? rows : [item(t("profile.no_matches"))]));
}

// The player's dice and the server's: each face's share, doubles, and whether the spread is
// unusual for fair dice (the figures `dicetest` gives).
function renderDice(dice) {
  if (!dice.ok) { $("dice-stats").textContent = dice.text; return; }
  const table = document.createElement("table");
  const tallies = [["profile.dice_player", dice.body.player], ["profile.dice_server", dice.body.server]]
    .filter(([, tally]) => tally);
  table.append(row(["", ...tallies.map(([key]) => t(key, { name: dice.body.name }))]));
  table.append(row([t("profile.rolls"), ...tallies.map(([, tally]) => String(tally.rolls))]));
  for (let face = 1; face <= 6; face += 1) {
    table.append(row([t("profile.die_face", { face }),
      ...tallies.map(([, tally]) => String(tally.faces[face - 1]))]));
  }
  table.append(row([t("profile.doubles"), ...tallies.map(([, tally]) => String(tally.doubles))]));
  table.append(row([t("profile.fairness"), ...tallies.map(([, tally]) => t(
    !tally.enough_rolls ? "profile.too_few_rolls" : tally.unusual ? "profile.unusual" : "profile.fair",
    { p: tally.p_value.toFixed(2) }))]));
  $("dice-stats").replaceChildren(table);
}

async function showRatings() {
  const ratings = await fetched("/api/ratings?limit=20");
  if (!ratings.ok) { $("ratings-list").textContent = ratings.text; return; }
  $("ratings-list").innerHTML = ratingsListSvg(ratings.body.ratings, t, $("history-name").value);
}

// --- review ----------------------------------------------------------------------------------

// The review of a match, seen by the profile's player when they played in it.
async function openReview(matchId, profileName) {
  const [match, analysis] = await Promise.all([
    fetched(`/api/matches/${matchId}`), fetched(`/api/matches/${matchId}/analysis`)]);
  if (!match.ok) { $("match-history").append(item(match.text)); return; }
  const dice = await diceVerdict(match.body.dice, t);
  const analysed = analysis.ok ? analysis.body.analysis : null;
  if (!analysed) {
    // Nothing to step through yet: the analysis gives the positions. Ask for it.
    $("match-history").append(item(`${dice} ${t("review.not_analysed")} `,
      button(t("review.ask"), () => send(`analyse ${matchId}`))));
    return;
  }
  $("review-dice").textContent = dice;
  $("review-mat").href = `/api/matches/${matchId}/mat`;
  $("review-record").href = `/api/matches/${matchId}/record`;
  const names = match.body.players;
  reviewing.match = match.body;
  reviewing.analysis = analysed;
  reviewing.names = names;
  seenBy(review.viewerOf(match.body, profileName));
  $("review-title").textContent = t("review.title", { a: names[0], b: names[1],
    match: matchWords(match.body.length, null) });
  const summary = review.summaryRows(analysed, names, t);
  $("review-summary").replaceChildren(row(["", ...names]), ...review.SUMMARY_FIELDS.map((field) =>
    row([t(`review.summary.${field}`), ...summary.map((player) => String(player[field]))])));
  $("review-scale").replaceChildren(...review.scaleNotes(analysed, analysis.body.below_resolution,
    names, t).map((note) => Object.assign(document.createElement("p"), { textContent: note })));
  $("room").hidden = true;
  $("review").hidden = false;
  reviewAt(0);
}


// The review's steps and graph as `viewer` (0 or 1) sees them.
function seenBy(viewer) {
  reviewing.viewer = viewer;
  ({ steps: reviewing.steps, series: reviewing.series } = review.reviewSteps(
    reviewing.match, reviewing.analysis, viewer));
  $("review-graph").innerHTML = review.equityGraphSvg(reviewing.series, reviewing.names, t);
}

function row(cells) {
  const element = document.createElement("tr");
  for (const cell of cells) element.insertCell().textContent = cell;
  return element;
}

function reviewAt(index) {
  if (reviewing.steps.length === 0) return;
  reviewing.at = Math.max(0, Math.min(reviewing.steps.length - 1, index));
  const step = reviewing.steps[reviewing.at];
  const showBest = $("review-show-best").checked && step.best !== step.played;
  const position = showBest ? step.afterBest : step.before;
  $("review-board").innerHTML = boardSvg(review.toBoardMessage(position, reviewing.names, step,
    reviewing.viewer), { labels: boardLabels });
  const said = (play) => review.decisionText(step.kind, play, step.seenAs, t);
  const words = [t("review.decision", { n: reviewing.at + 1, of: reviewing.steps.length,
    game: step.game, name: step.name, played: said(step.played) })];
  if (step.error > 0 && step.best !== step.played) {
    words.push(t("review.best", { best: said(step.best), error: (1000 * step.error).toFixed(0) }));
  }
  if (step.skill !== "none") words.push(t(`review.skill.${step.skill.replace(" ", "_")}`));
  $("review-decision").textContent = words.join(" ");
  for (const mark of $("review-graph").querySelectorAll("[data-step]")) {
    mark.classList.toggle("current", Number(mark.dataset.step) === reviewing.at);
  }
}

function closeReview() {
  $("review").hidden = true;
  $("room").hidden = false;
}
