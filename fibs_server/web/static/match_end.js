// The end of a match on the page: the result and the score, each player's rating after a rated
// match with its change and experience, the match's dice checked in the browser from the seed
// the server now reveals, and what to do next: a rematch on the same terms, the match's review
// (profile.js), or back to the room. It stays until the player chooses, or a new match or
// watch takes the board.
import { fetchJson } from "./api.js";
import { diceVerdict } from "./fair_dice.js";
import { t } from "./i18n.js";
import { ratingWords } from "./review.js";
import { $, button, inviteWords, isBot } from "./ui.js";
import { send, session } from "./session.js";

// "+12.34", "-3.10", "±0.00": a rating's change as players read it.
export function signedChange(change) {
  const text = Math.abs(change).toFixed(2);
  return change > 0 ? `+${text}` : change < 0 ? `-${text}` : `±${text}`;
}

// The sentences of the screen, from the match_over message; `opponent` the other player's name.
export function endLines(message, opponent, translate) {
  const won = message.winner === "player";
  const score = message.score;
  const lines = {
    result: translate(won ? "end.won" : "end.lost", { name: opponent }),
    score: translate("end.score", { player: score.player, opponent: score.opponent,
      name: opponent, match: translate(message.length === null ? "match.unlimited" : "match.points",
        { length: message.length }) }),
    ratings: [],
  };
  if (message.ratings) {
    for (const [side, key] of [["player", "end.rating_player"], ["opponent", "end.rating_opponent"]]) {
      const rating = message.ratings[side];
      if (rating) {
        lines.ratings.push(translate(key, { name: opponent, rating: rating.rating.toFixed(2),
          change: signedChange(rating.change), experience: rating.experience }));
      }
    }
  } else {
    lines.ratings.push(translate("end.unrated", {}));
  }
  return lines;
}

// The analysis's figures for the screen: each player's error rate, PR and rating words, the
// player's own first (`me`); null for a match the analysis does not judge.
export function analysisLines(players, me, translate) {
  if (!players) return [translate("end.not_judged", {})];
  const mine = [...players].sort((a, b) => (b.name === me) - (a.name === me));
  return mine.map((player) => translate(player.name === me ? "end.errors_player" : "end.errors_opponent", {
    name: player.name, error_rate: player.error_rate.toFixed(1), pr: player.pr.toFixed(1),
    rating: ratingWords(player.rating, translate) }));
}

// The command of a rematch on the same terms (`terms` and `rated` the match_started message's).
// A bot's match the page started (`bot`, which takes the bot's name for its level, a length
// and unrated) starts again so: an invitation needs the player ready, and a visitor may not
// invite at all. Other terms (a variant, a clock) only an invitation carries.
export function rematchCommand(opponent, length, match) {
  const words = inviteWords(length, match && { ...match.terms, rated: match.rated });
  if (isBot(opponent) && /^\S+( unrated)?$/.test(words)) return `bot ${opponent} ${words}`;
  return `invite ${opponent} ${words}`;
}

const screen = $("match-end");
let shownMatch = null; // the match_id of the match the screen ends
let rematchAsked = null; // the opponent the player asked for a rematch, till the server says

export const HANDLERS = {
  invitation_sent: (message) => {
    if (screen.hidden || message.to !== rematchAsked) return;
    $("match-end-said").textContent = t("end.rematch_sent", { name: message.to });
  },
  analysis_ready: (message) => {
    if (screen.hidden || message.match_id !== shownMatch) return;
    $("match-end-analysis").replaceChildren(...analysisLines(message.players, session.me, t)
      .map((line) => Object.assign(document.createElement("p"), { textContent: line })));
  },
};

// Shown under the board's place after the match_over message; `match` the match_started
// message of the match it ends (its terms, for the rematch); `onClose` when the player goes
// back to the room.
export function showMatchEnd(message, match, opponent, onClose) {
  const lines = endLines(message, opponent, t);
  $("match-end-result").textContent = lines.result;
  $("match-end-score").textContent = lines.score;
  $("match-end-ratings").replaceChildren(...lines.ratings.map((line) =>
    Object.assign(document.createElement("p"), { textContent: line })));
  const actions = [button(t("end.rematch"), () => {
    send(rematchCommand(opponent, message.length ?? null, match));
    rematchAsked = opponent; // said when the server sends it; a refusal the game's status says
  })];
  const stored = message.match_id !== null && message.match_id !== undefined;
  if (stored && !session.visitor) {
    actions.push(button(t("end.review"), () => reviewRequested(message.match_id)));
  }
  actions.push(button(t("end.back"), () => { hideMatchEnd(); onClose(); }));
  $("match-end-actions").replaceChildren(...actions);
  $("match-end-said").textContent = "";
  rematchAsked = null;
  $("match-end-dice").textContent = "";
  shownMatch = stored ? message.match_id : null;
  $("match-end-analysis").replaceChildren(Object.assign(document.createElement("p"),
    { textContent: stored ? t("end.analysing") : "" }));
  $("board-holder").hidden = true; // "no game yet" would say nothing this screen does not
  screen.hidden = false;
  actions[0].focus();
  if (stored) showDice(message.match_id);
}

// The finished match's record reveals its seed: every roll checked here (docs/FAIRNESS.md).
async function showDice(matchId) {
  let text;
  try {
    text = await diceVerdict((await fetchJson(`/api/matches/${matchId}`)).dice, t);
  } catch (error) {
    text = t("end.dice_unread", { error: error.message });
  }
  if (!screen.hidden) $("match-end-dice").textContent = text;
}

export function hideMatchEnd() {
  screen.hidden = true;
  $("board-holder").hidden = false;
}

let openReview = () => {};
// profile.js opens a review; it is given here so that this module imports no other screen.
export function onReview(open) {
  openReview = open;
}

function reviewRequested(matchId) {
  openReview(matchId, session.me);
}
