// The match on the page: the typed board messages drawn (board_view.js), a play assembled
// checker by checker by dragging or clicking (play.js: only what can still end in one of the
// server's legal plays) and sent whole, the cube and resignations with a question first,
// the clock counting down, the opponent's last move marked, sounds.
import * as play from "./play.js";
import { boardSvg } from "./board_view.js";
import { attachBoardInput } from "./board_input.js";
import * as sounds from "./sounds.js";
import { t } from "./i18n.js";
import { $, boardLabels, confirmAction, isBot } from "./ui.js";
import { send, session } from "./session.js";
import { randomSalt, rememberCommitment } from "./fair_dice.js";
import { hideMatchEnd, showMatchEnd } from "./match_end.js";
import { endCountdown, showCountdown } from "./absence_banner.js";

const AUTO_CONFIRM_KEY = "fibs-auto-confirm";
const ASK_FIRST_KEY = "fibs-ask-first";
const RESIGN_SIZES = { n: "single", g: "gammon", b: "backgammon" };
// How long a turn lost to a roll without a play stays said, unless the player acts first: the
// next roll (the server's own, in a game without a cube) follows at once.
const TURN_PASSED_MS = 5000;
const noGame = $("no-game"); // what the board's place says when there is no board

const state = {
  board: null, // the last typed board message
  steps: [], // the play being assembled: single steps {from, to, die}
  selected: null, // a point picked by a first click
  lastMove: null, // the opponent's last move's steps
  sent: false, // the play went to the server; its answer comes next
  clock: null, // {side, decision, endsAt (performance.now()), warned, reserves (a time bank's)}
  clockTick: null,
  match: null, // the match_started message of the match on the board
  lastRoll: null, // {by, dice} of the last roll, for a turn it passes
  turnPassedTimer: null,
};

// --- what the server says --------------------------------------------------------------

export const HANDLERS = {
  board: showBoard,
  match_started: (message) => {
    hideMatchEnd();
    endCountdown(); // resumed: nobody has to come back any more
    state.match = message;
    state.lastMove = null;
    // The seed is fixed and its commitment is here: a salt chosen now is one the server
    // could not know when it fixed the seed (docs/FAIRNESS.md).
    if (message.commitment && !message.salted) {
      rememberCommitment(message.commitment);
      send(`salt ${randomSalt()}`);
    }
  },
  watching: () => { hideMatchEnd(); endCountdown(); state.match = null; state.lastMove = null; },
  watch_ended: () => reset(),
  game_started: (message) => { state.lastMove = null; say(t("game.started", { game: message.game })); },
  opening_roll: (message) => {
    sounds.play("dice");
    say(message.starter === null ? t("game.opening_tie", dice(message.dice))
      : t(message.starter === "player" ? "game.opening_player" : "game.opening_opponent",
        { ...dice(message.dice), name: opponentName() }));
  },
  rolled: (message) => {
    state.lastRoll = message;
    sounds.play("dice");
    say(t(message.by === "player" ? "game.rolled_player" : "game.rolled_opponent",
      { name: opponentName(), a: message.dice[0], b: message.dice[1] }));
  },
  cannot_move: turnPassed,
  moved: (message) => {
    sounds.play("checker");
    if (message.by === "opponent") state.lastMove = message.steps;
  },
  offer: (message) => {
    if (message.by === "opponent") sounds.play("turn");
    if (message.kind === "double") {
      say(t(message.by === "player" ? "game.you_double" : "game.opponent_doubles",
        { name: opponentName(), cube: message.cube }));
    } else {
      say(t(message.by === "player" ? "game.you_resign" : "game.opponent_resigns",
        { name: opponentName(), points: pointsWord(message.points), size: t(`resign.${message.size}`) }));
    }
  },
  answer: (message) => {
    const who = message.by === "player" ? "player" : "opponent";
    const what = message.kind === "double" ? (message.accepted ? "take" : "drop")
      : (message.accepted ? "accept_resignation" : "reject_resignation");
    say(t(`game.${what}_${who}`, { name: opponentName(), cube: message.cube,
      points: pointsWord(message.points) }));
  },
  game_over: (message) => say(t(message.winner === "player" ? "game.won_game" : "game.lost_game",
    { name: opponentName(), points: pointsWord(message.points), player: message.score.player,
      opponent: message.score.opponent })),
  forfeited: (message) => say(t(message.by === "player" ? "game.forfeited_player"
    : "game.forfeited_opponent", { name: opponentName() })),
  match_over: (message) => {
    endCountdown(); // decided: forfeited, or played out
    sounds.play("match_over");
    say(t(message.winner === "player" ? "game.won_match" : "game.lost_match",
      { name: opponentName(), player: message.score.player, opponent: message.score.opponent,
        length: message.length ?? "∞" }));
    const [playing, match, opponent] = [state.board?.as_player, state.match, opponentName()];
    clearBoard(); // the result stays said; no board, nothing left to press
    render();
    if (playing) showMatchEnd(message, match, opponent, () => say(""));
  },
  joined_next_game: (message) => {
    if (message.by === "opponent") say(t("game.opponent_joined", { name: opponentName() }));
  },
  comeback_countdown: showCountdown,
  time_warning: (message) => {
    sounds.play("warning");
    // With a time bank the opponent's warning comes too: time running out loses the match.
    say(message.side === "opponent"
      ? t("clock.opponent_warning", { name: opponentName(), seconds: message.seconds })
      : t("clock.warning", { seconds: message.seconds }));
    if (state.clock) { // the server's count, whatever the page counted meanwhile
      state.clock.endsAt = performance.now() + message.seconds * 1000;
      state.clock.warned = true;
      renderClock();
    }
  },
};

// `{a, b}` of an opening roll's dice for a text.
const dice = (pair) => ({ a: pair.player, b: pair.opponent });
const opponentName = () => state.board?.opponent.name ?? "";
// "1 point", "2 points": what a game, a dropped double or a resignation is worth.
const pointsWord = (count) => t(count === 1 ? "game.points_one" : "game.points_other", { count });

function say(text) {
  $("game-status").textContent = text;
}

// A roll without a play, said beside the status line (which the next roll replaces at once)
// until the player's next action on the game or TURN_PASSED_MS on the page's clock.
function turnPassed(message) {
  const roll = state.lastRoll?.by === message.by ? state.lastRoll.dice : null;
  const mine = message.by === "player";
  const key = roll ? (mine ? "game.cannot_move_player_roll" : "game.cannot_move_opponent_roll")
    : (mine ? "game.cannot_move_player" : "game.cannot_move_opponent");
  const notice = $("turn-notice");
  notice.textContent = t(key, { name: opponentName(), a: roll?.[0], b: roll?.[1] });
  notice.hidden = false;
  clearTimeout(state.turnPassedTimer);
  state.turnPassedTimer = setTimeout(clearTurnPassed, TURN_PASSED_MS);
}

function clearTurnPassed() {
  clearTimeout(state.turnPassedTimer);
  $("turn-notice").hidden = true;
  $("turn-notice").textContent = "";
}
$("game").addEventListener("pointerdown", clearTurnPassed);
$("game").addEventListener("keydown", clearTurnPassed);

// A refused command (the server's refusal, in the page's words where it has them).
export function refused(text) {
  if (state.sent) { // the play was refused: assemble it again
    state.sent = false;
    state.steps = [];
  }
  say(text);
  render();
}

function showBoard(board) {
  if (board.phase === "match_over") return; // the match_over message took the board away
  const myTurnBefore = isMyTurn(state.board);
  state.board = board;
  state.steps = [];
  state.selected = null;
  state.sent = false;
  state.clock = board.clock && { ...board.clock,
    endsAt: performance.now() + board.clock.seconds * 1000 };
  if (isMyTurn(board) && !myTurnBefore) sounds.play("turn");
  if (isMyTurn(board) && board.phase === "move") prepareMove(board);
  render();
}

// A roll that leaves no choice is shown assembled; a roll with no play says so.
function prepareMove(board) {
  if (play.cannotMove(board)) {
    say(t("game.no_legal_move"));
    return;
  }
  const forced = play.forcedPlay(board);
  if (forced) {
    state.steps = forced;
    say(t("game.forced"));
    if (autoConfirm()) sendPlay();
  }
}

function isMyTurn(board) {
  return Boolean(board && board.as_player && board.turn === "player");
}

function moving() {
  return isMyTurn(state.board) && state.board.phase === "move" && !state.sent;
}

// --- assembling and sending the play ----------------------------------------------------

function addSteps(steps) {
  state.steps = [...state.steps, ...steps];
  state.selected = null;
  sounds.play("checker");
  if (play.isComplete(state.board, state.steps) && autoConfirm()) sendPlay();
  render();
}

function sendPlay() {
  state.sent = true;
  send(play.moveCommand(state.board, state.steps));
}

function pick(point) {
  state.selected = point;
  render();
}

function clickPoint(point) {
  if (!moving()) return;
  if (state.selected !== null) {
    const target = play.destinations(state.board, state.steps, state.selected)
      .find((destination) => destination.to === point);
    if (target) { addSteps(target.steps); return; }
    if (point === state.selected) { pick(null); return; }
  }
  if (play.movablePoints(state.board, state.steps).includes(point)) pick(point);
  else say(t("game.cannot_pick"));
}

attachBoardInput($("board-holder"), {
  canPick: (point) => moving() && play.movablePoints(state.board, state.steps).includes(point),
  onPick: pick,
  onDrop: (from, to) => {
    const target = moving() && play.destinations(state.board, state.steps, from)
      .find((destination) => destination.to === to);
    if (target) addSteps(target.steps);
    else pick(null);
  },
  onClick: clickPoint,
  // A click on one's own dice confirms a complete play, as on the sites people know.
  onDie: () => { if (moving() && play.isComplete(state.board, state.steps)) { sendPlay(); render(); } },
});

// "8/5 6/5", "8-5 6-5", "bar/22", "6/off": a typed play in one's own numbering.
function typedSteps(board, text) {
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const point = (word) => (word === "bar" ? play.BAR : word === "off" ? play.OFF : Number(word));
  let steps = [];
  for (const word of words) {
    const [from, to] = word.split(/[/-]/).map(point);
    const target = Number.isInteger(from) && Number.isInteger(to)
      && play.destinations(board, steps, from).find((destination) => destination.to === to);
    if (!target) return null;
    steps = [...steps, ...target.steps];
  }
  return steps.length > 0 && play.isComplete(board, steps) ? steps : null;
}

$("move-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!moving()) return;
  const steps = typedSteps(state.board, $("move-text").value);
  if (!steps) { say(t("game.typed_move_illegal")); return; }
  state.steps = steps;
  $("move-text").value = "";
  sendPlay();
  render();
});

$("confirm-move").addEventListener("click", () => { if (moving()) { sendPlay(); render(); } });
$("undo-step").addEventListener("click", () => {
  state.steps = state.steps.slice(0, -1);
  state.selected = null;
  render();
});

// --- the cube, resignations, the rest ----------------------------------------------------

const askFirst = () => $("ask-first").checked;
const autoConfirm = () => $("auto-confirm").checked;

async function afterQuestion(questionKey, command, params = {}) {
  if (await confirmAction(t(questionKey, { name: opponentName(), ...params }), !askFirst())) send(command);
}

$("roll").addEventListener("click", () => send("roll"));
$("double").addEventListener("click", () => afterQuestion("confirm.double", "double",
  { cube: 2 * (state.board?.cube.value ?? 1) }));
$("accept").addEventListener("click", () => afterQuestion(
  state.board?.offer?.kind === "double" ? "confirm.take" : "confirm.accept_resignation", "accept"));
$("reject").addEventListener("click", () => afterQuestion(
  state.board?.offer?.kind === "double" ? "confirm.drop" : "confirm.reject_resignation", "reject"));
$("resign").addEventListener("click", () => {
  const size = $("resign-size").value;
  afterQuestion("confirm.resign", `resign ${size}`, { size: t(`resign.${RESIGN_SIZES[size]}`) });
});
$("join-next").addEventListener("click", () => send("join"));
$("leave").addEventListener("click", () => afterQuestion("confirm.leave", "leave"));
$("unwatch").addEventListener("click", () => send("unwatch"));
// Against a bot a move may be taken back; a rated match then is no longer rated: said first,
// whatever the "ask first" box says.
$("take-back").addEventListener("click", async () => {
  if (!state.match?.rated || await confirmAction(t("confirm.take_back"))) send("undo");
});
for (const [id, key] of [["auto-confirm", AUTO_CONFIRM_KEY], ["ask-first", ASK_FIRST_KEY]]) {
  const saved = localStorage.getItem(key);
  if (saved !== null) $(id).checked = saved === "1";
  $(id).addEventListener("change", () => localStorage.setItem(key, $(id).checked ? "1" : "0"));
}

// --- drawing -----------------------------------------------------------------------------

function clearBoard() {
  Object.assign(state, { board: null, steps: [], selected: null, lastMove: null, sent: false,
    clock: null, match: null, lastRoll: null });
  clearTurnPassed();
}

export function reset() {
  hideMatchEnd();
  clearBoard();
  $("game-status").textContent = "";
  render();
}

const secondsLeft = () => Math.max(0, Math.ceil((state.clock.endsAt - performance.now()) / 1000));

function clockText() {
  if (!state.clock) return null;
  const seconds = secondsLeft();
  const decision = t(`decision.${state.clock.decision}`);
  return state.clock.side === "player" ? t("clock.player", { decision, seconds })
    : t("clock.opponent", { name: opponentName(), decision, seconds });
}

// "4:05": a time bank's reserve.
const minutes = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;

// Both sides' clocks in a timed match: the side on turn counts its decision's time down, the
// other shows the whole allowance its next decision gets (FIBS's timer runs per decision).
// With a time bank each side shows its reserve, the side on turn the seconds of its decision
// first ("8 s + 1:00"), then its reserve running.
function clockTexts() {
  const clocks = {};
  const allowance = state.match?.terms?.turn_seconds;
  if (allowance) for (const side of ["player", "opponent"]) clocks[side] = `${allowance} s`;
  if (!state.clock) return clocks;
  const reserves = state.clock.reserves;
  if (!reserves) {
    clocks[state.clock.side] = `${secondsLeft()} s`;
    return clocks;
  }
  for (const side of ["player", "opponent"]) clocks[side] = minutes(reserves[side]);
  const left = secondsLeft();
  const reserve = Math.min(left, reserves[state.clock.side]);
  clocks[state.clock.side] = left > reserve ? `${left - reserve} s + ${minutes(reserve)}` : minutes(reserve);
  return clocks;
}

function renderClock() {
  clearTimeout(state.clockTick);
  const text = clockText();
  $("clock").hidden = text === null;
  if (text === null) return;
  $("clock").classList.toggle("warning", Boolean(state.clock.warned));
  $("clock").textContent = text;
  const seconds = secondsLeft();
  // Only the clock's text changes between boards: a redraw would drop a checker being dragged.
  const onBoard = $("board-holder").querySelector(`[data-clock="${state.clock.side}"]`);
  if (onBoard) onBoard.textContent = clockTexts()[state.clock.side];
  if (seconds > 0) state.clockTick = setTimeout(renderClock, 250);
}

export function render() {
  const board = state.board;
  if (!board) {
    noGame.textContent = t("game.none");
    $("board-holder").replaceChildren(noGame);
    renderControls();
    renderClock();
    return;
  }
  const mine = moving();
  $("board-holder").innerHTML = boardSvg(board, {
    steps: state.steps,
    lastMove: state.lastMove ?? [],
    selected: state.selected,
    destinations: mine && state.selected !== null
      ? play.destinations(board, state.steps, state.selected).map((destination) => destination.to) : [],
    movable: mine ? play.movablePoints(board, state.steps) : [],
    labels: boardLabels,
    clocks: clockTexts(),
  });
  renderControls();
  renderClock();
}

function renderControls() {
  const board = state.board;
  const playing = Boolean(board?.as_player);
  const mine = isMyTurn(board);
  const phase = board?.phase;
  const complete = moving() && play.isComplete(board, state.steps);
  const opponentIsBot = playing && isBot(board.opponent.name);
  const show = {
    roll: mine && phase === "roll_or_double",
    double: mine && phase === "roll_or_double" && board.player.may_double,
    accept: mine && (phase === "double_offered" || phase === "resign_offered"),
    reject: mine && (phase === "double_offered" || phase === "resign_offered"),
    "confirm-move": complete && !autoConfirm(),
    "undo-step": moving() && state.steps.length > 0,
    "take-back": playing && (session.visitor || opponentIsBot)
      && phase !== "not_started",
    "join-next": playing && phase === "between_games",
    "resign-controls": playing && ["roll_or_double", "move"].includes(phase),
    leave: playing && !opponentIsBot,
    unwatch: Boolean(board) && !playing,
    "move-form": moving(),
  };
  for (const [id, visible] of Object.entries(show)) $(id).hidden = !visible;
}
