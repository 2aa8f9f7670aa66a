// The Puzzles tab (docs/WEB-API.md, "Puzzles"): the blunders of analysed rated matches, read
// from the API (the day's, or the player's next, nearest their puzzle rating), drawn from
// the decider's side with review.js's board, and answered over the connection (`puzzle <id>
// <answer>`: a play typed in one's own point numbers, or the cube's answer by its button);
// the `puzzle_result` says whether it was the best, and the ratings after it.
import { fetchJson } from "./api.js";
import { boardSvg } from "./board_view.js";
import { decodePositionId, toBoardMessage } from "./review.js";
import { t } from "./i18n.js";
import { $, boardLabels, button } from "./ui.js";
import { send, session } from "./session.js";

const CUBE_ANSWERS = { double: ["double", "no double"], answer: ["take", "drop"] };
const state = { puzzle: null };

// The puzzle's position as a board message, from its decider's side (the player below).
export function puzzleBoard(puzzle) {
  const step = {
    player: 0, colour: "O", score: [puzzle.score.player, puzzle.score.opponent],
    kind: puzzle.question === "play" ? "move" : "double", dice: puzzle.dice,
    matchLength: puzzle.length, cube: puzzle.cube,
    cubeOwner: puzzle.cube_owner === null ? null : puzzle.cube_owner === "player" ? 0 : 1,
  };
  const opponent = puzzle.players.find((name) => name !== puzzle.decider) ?? puzzle.players[1];
  return toBoardMessage(decodePositionId(puzzle.position_id), [puzzle.decider, opponent], step, 0);
}

function panel() {
  return $("puzzles");
}

function say(text) {
  $("puzzle-said").textContent = text;
}

async function load(path) {
  say("");
  try {
    show(await fetchJson(path));
  } catch (error) {
    state.puzzle = null;
    $("puzzle-view").replaceChildren();
    say(error.status === 404 ? t("puzzle.none") : error.message);
  }
}

function show(puzzle) {
  state.puzzle = puzzle;
  const view = $("puzzle-view");
  const heading = document.createElement("p");
  heading.id = "puzzle-heading";
  heading.textContent = t(`puzzle.question.${puzzle.question}`, {
    id: puzzle.puzzle_id, rating: Math.round(puzzle.rating), name: puzzle.decider,
    match: puzzle.match_id, game: puzzle.game });
  const board = document.createElement("div");
  board.className = "puzzle-board";
  board.innerHTML = boardSvg(puzzleBoard(puzzle), { labels: boardLabels });
  const answers = document.createElement("form");
  answers.id = "puzzle-answer";
  if (puzzle.question === "play") {
    const typed = document.createElement("input");
    typed.id = "puzzle-play";
    typed.placeholder = "8/5 6/5";
    typed.setAttribute("aria-label", t("puzzle.your_play"));
    typed.autocomplete = "off";
    const submit = document.createElement("button");
    submit.type = "submit";
    submit.textContent = t("puzzle.answer");
    answers.append(typed, " ", submit);
    answers.addEventListener("submit", (event) => {
      event.preventDefault();
      if (typed.value.trim()) answer(typed.value.trim());
    });
  } else {
    for (const word of CUBE_ANSWERS[puzzle.question]) {
      answers.append(button(t(`puzzle.cube.${word.replace(" ", "_")}`), () => answer(word),
        "puzzle-cube"), " ");
    }
  }
  view.replaceChildren(heading, board, answers);
}

function answer(words) {
  say("");
  send(`puzzle ${state.puzzle.puzzle_id} ${words}`);
}

export function init() {
  const box = panel();
  if (!box || $("puzzle-view")) return;
  const choose = document.createElement("p");
  choose.append(
    button(t("puzzle.daily"), () => load("/api/puzzles/daily"), "puzzle-daily"), " ",
    button(t("puzzle.next"), () => load(`/api/puzzles/next?name=${encodeURIComponent(session.me ?? "")}`),
      "puzzle-next"));
  const view = document.createElement("div");
  view.id = "puzzle-view";
  const said = document.createElement("p");
  said.id = "puzzle-said";
  said.setAttribute("aria-live", "polite");
  box.append(choose, view, said);
}

export const HANDLERS = {
  logged_in: init,
  puzzle_result: (message) => {
    const verdict = message.solved ? t("puzzle.right", { best: message.best })
      : t("puzzle.wrong", { best: message.best, played: message.played });
    const rating = message.first
      ? t("puzzle.rating", { rating: message.rating.toFixed(1),
        change: `${message.change >= 0 ? "+" : ""}${message.change.toFixed(1)}` })
      : t("puzzle.rating_once", { rating: message.rating.toFixed(1) });
    say(`${verdict} ${rating}`);
  },
};
