// The board from a parsed board: line (clip.js), seen from the viewer's side: the viewer's
// own point numbers (1-24, 25 their bar, 0 borne off), pip counts, the cube, whose turn; the
// moves the viewer clicks, kept until they make a whole move; and the board drawn as SVG.
// Pure functions: the page and `node --test` use the same. The server decides what is legal:
// these checks only keep a click from making a step that is obviously impossible.

export const BAR = 25;
export const OFF = 0;

// The absolute FIBS number of the viewer's own point (the mapping is its own inverse).
export function absolute(board, ownPoint) {
  return board.colour === 1 ? ownPoint : 25 - ownPoint;
}

// Checkers by the viewer's own point: mine[p] and theirs[p] for p in 1..24, the bars at
// mine[25] and theirs[0] (where each side enters from), what is borne off in `off`.
export function position(board) {
  const mine = new Array(26).fill(0);
  const theirs = new Array(26).fill(0);
  for (let p = 1; p <= 24; p += 1) {
    const count = board.points[absolute(board, p)] * board.colour;
    if (count > 0) mine[p] = count;
    if (count < 0) theirs[p] = -count;
  }
  mine[BAR] = board.playerBar;
  theirs[0] = board.opponentBar;
  return { mine, theirs, off: { mine: board.playerOff, theirs: board.opponentOff } };
}

export function pipCounts(board) {
  const { mine, theirs } = position(board);
  let player = 0;
  let opponent = theirs[0] * 25;
  for (let p = 1; p <= 25; p += 1) player += mine[p] * p;
  for (let p = 1; p <= 24; p += 1) opponent += theirs[p] * (25 - p);
  return { player, opponent };
}

// "player", "opponent" or null (centred, or a double waits for its answer).
export function cubeOwner(board) {
  if (board.cube <= 1 || board.playerMayDouble === board.opponentMayDouble) return null;
  return board.playerMayDouble ? "player" : "opponent";
}

// "player", "opponent" or null (between games, the match over).
export function whoseTurn(board) {
  if (board.turn === 0) return null;
  return board.turn === board.colour ? "player" : "opponent";
}

export function isWatching(board) {
  return board.player !== "You";
}

// The dice the viewer has to move with: four of a double.
export function rolledDice(board) {
  const [a, b] = board.playerDice;
  if (!a || !b) return [];
  return a === b ? [a, a, a, a] : [a, b];
}

// The dice left once `steps` are made.
export function diceLeft(board, steps) {
  const left = rolledDice(board);
  for (const step of steps) left.splice(left.indexOf(step.die), 1);
  return left;
}

// The position after `steps`.
export function positionAfter(board, steps) {
  const now = position(board);
  for (const step of steps) {
    now.mine[step.from] -= 1;
    if (step.to === OFF) {
      now.off.mine += 1;
    } else {
      now.mine[step.to] += 1;
      if (now.theirs[step.to] === 1) { // a blot: hit
        now.theirs[step.to] = 0;
        now.theirs[0] += 1;
      }
    }
  }
  return now;
}

function allHome(mine) {
  for (let p = 7; p <= BAR; p += 1) if (mine[p] > 0) return false;
  return true;
}

// The step a click on own point `from` makes with `die`, or null if it obviously cannot.
export function stepWith(now, from, die) {
  if (now.mine[from] <= 0) return null;
  if (from !== BAR && now.mine[BAR] > 0) return null; // enter first
  const to = Math.max(from - die, OFF);
  if (to === OFF) {
    if (!allHome(now.mine)) return null;
    if (from - die < OFF) { // a higher die bears off only from the highest point
      for (let p = from + 1; p <= 6; p += 1) if (now.mine[p] > 0) return null;
    }
  } else if (now.theirs[to] >= 2) {
    return null;
  }
  return { from, to, die };
}

// The viewer clicked own point `from`: the next step, with `preferredDie` if it can, else
// with the largest die that can; null if none can.
export function clickStep(board, steps, from, preferredDie = null) {
  const left = diceLeft(board, steps);
  if (steps.length >= board.canMove || left.length === 0) return null;
  const now = positionAfter(board, steps);
  const order = [...new Set(left)].sort((a, b) => b - a);
  if (preferredDie !== null && left.includes(preferredDie)) {
    order.splice(order.indexOf(preferredDie), 1);
    order.unshift(preferredDie);
  }
  for (const die of order) {
    const step = stepWith(now, from, die);
    if (step) return step;
  }
  return null;
}

// `move 8-5 6-5` in FIBS's absolute numbers, `bar` and `off`.
export function moveCommand(board, steps) {
  const word = (point) => (point === BAR ? "bar" : point === OFF ? "off" : String(absolute(board, point)));
  return ["move", ...steps.map((s) => `${word(s.from)}-${word(s.to)}`)].join(" ");
}

// --- drawing ---------------------------------------------------------------------------

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeText(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const WIDTH = 330;
const HEIGHT = 250;
const MARGIN = 10;
const POINT_WIDTH = 20;
const BAR_WIDTH = 24;
const TRAY_WIDTH = 30;
const CHECKER = 18;
const HALF = 6 * POINT_WIDTH;

// Where own point p's column starts: 1-12 along the bottom from the right, 13-24 along the
// top from the left (the viewer's home board bottom right).
function pointX(p) {
  const column = p <= 12 ? 12 - p : p - 13; // 0..11 from the left
  return MARGIN + column * POINT_WIDTH + (column >= 6 ? BAR_WIDTH : 0);
}

function checkerStack(x, bottom, count, mine, direction) {
  const shown = Math.min(count, 5);
  let svg = "";
  for (let i = 0; i < shown; i += 1) {
    const cy = bottom + direction * (CHECKER / 2 + i * CHECKER);
    svg += `<circle class="checker ${mine ? "mine" : "theirs"}" cx="${x + POINT_WIDTH / 2}" cy="${cy}" r="${CHECKER / 2 - 1}"/>`;
  }
  if (count > 5) {
    const cy = bottom + direction * (CHECKER / 2 + 4 * CHECKER);
    svg += `<text class="count" x="${x + POINT_WIDTH / 2}" y="${cy + 4}">${count}</text>`;
  }
  return svg;
}

// The board as an SVG element's text: each own point a <g data-point="p"> (the bar
// data-point="25", the tray data-point="0"), each die of the viewer's roll data-die="value".
export function boardSvg(board, steps = []) {
  const now = positionAfter(board, steps);
  const top = MARGIN;
  const bottom = HEIGHT - MARGIN - 30;
  const middle = (top + bottom) / 2;
  const barX = MARGIN + HALF;
  const trayX = MARGIN + 2 * HALF + BAR_WIDTH + 4;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" class="board" role="img" aria-label="backgammon board">`,
    `<rect class="felt" x="${MARGIN}" y="${top}" width="${2 * HALF + BAR_WIDTH}" height="${bottom - top}"/>`,
    `<rect class="bar" x="${barX}" y="${top}" width="${BAR_WIDTH}" height="${bottom - top}"/>`];
  for (let p = 1; p <= 24; p += 1) {
    const x = pointX(p);
    const onTop = p > 12;
    const base = onTop ? top : bottom;
    const tip = onTop ? middle - 8 : middle + 8;
    const shade = p % 2 ? "odd" : "even";
    parts.push(`<g class="point" data-point="${p}">`,
      `<rect class="hit-area" x="${x}" y="${onTop ? top : middle}" width="${POINT_WIDTH}" height="${middle - top}"/>`,
      `<polygon class="triangle ${shade}" points="${x},${base} ${x + POINT_WIDTH},${base} ${x + POINT_WIDTH / 2},${tip}"/>`,
      `<text class="number" x="${x + POINT_WIDTH / 2}" y="${onTop ? top - 2 : bottom + 9}">${absolute(board, p)}</text>`);
    const mine = now.mine[p] > 0;
    const count = mine ? now.mine[p] : now.theirs[p];
    parts.push(checkerStack(x, base, count, mine, onTop ? 1 : -1), "</g>");
  }
  // The bars: the viewer's checkers enter from the top half of the bar (their 25).
  parts.push(`<g class="point bar-point" data-point="${BAR}">`,
    `<rect class="hit-area" x="${barX}" y="${top}" width="${BAR_WIDTH}" height="${middle - top}"/>`,
    checkerStack(barX + 2, middle - 4, now.mine[BAR], true, -1), "</g>",
    checkerStack(barX + 2, middle + 4, now.theirs[0], false, 1));
  // The tray: borne-off counts; clicking it bears off is not needed (a click on a home
  // point bears off when the die allows), it only shows.
  parts.push(`<g class="tray" data-point="${OFF}">`,
    `<rect class="tray" x="${trayX}" y="${top}" width="${TRAY_WIDTH - 6}" height="${bottom - top}"/>`,
    `<text class="off theirs" x="${trayX + 12}" y="${top + 14}">${now.off.theirs}</text>`,
    `<text class="off mine" x="${trayX + 12}" y="${bottom - 6}">${now.off.mine}</text>`, "</g>");
  // The cube: in the middle when centred, at its owner's side otherwise.
  const owner = cubeOwner(board);
  const cubeY = owner === "player" ? bottom - 26 : owner === "opponent" ? top + 4 : middle - 11;
  parts.push(`<g class="cube"><rect x="${trayX - 1}" y="${cubeY}" width="22" height="22" rx="3"/>`,
    `<text x="${trayX + 10}" y="${cubeY + 15}">${board.cube > 1 ? board.cube : 64}</text></g>`);
  // Dice: the viewer's right of the bar, the opponent's left.
  const diceY = middle - 10;
  const left = diceLeft(board, steps);
  const double = board.playerDice[0] === board.playerDice[1];
  board.playerDice.forEach((value, i) => {
    if (!value) return;
    // A double's first die greys once two of its four moves are made, its second at four.
    const spent = double ? left.length <= (1 - i) * 2 : !left.includes(value);
    const x = barX + BAR_WIDTH + HALF / 2 - 22 + i * 26;
    parts.push(`<g class="die mine${spent ? " used" : ""}" data-die="${value}"><rect x="${x}" y="${diceY}" width="20" height="20" rx="3"/><text x="${x + 10}" y="${diceY + 15}">${value}</text></g>`);
  });
  board.opponentDice.forEach((value, i) => {
    if (!value) return;
    const x = MARGIN + HALF / 2 - 22 + i * 26;
    parts.push(`<g class="die theirs"><rect x="${x}" y="${diceY}" width="20" height="20" rx="3"/><text x="${x + 10}" y="${diceY + 15}">${value}</text></g>`);
  });
  // Below the board: names, score, match length, pips, whose turn.
  const pips = pipCounts(board);
  const turn = whoseTurn(board);
  const length = board.matchLength === null ? "unlimited match" : `${board.matchLength}-point match`;
  const name = (who) => escapeText(who === "player" ? board.player : board.opponent);
  parts.push(`<text class="caption" x="${MARGIN}" y="${HEIGHT - 20}">${turn === "player" ? "▶ " : ""}${name("player")}: ${board.playerScore} · pips ${pips.player}</text>`,
    `<text class="caption" x="${MARGIN}" y="${HEIGHT - 6}">${turn === "opponent" ? "▶ " : ""}${name("opponent")}: ${board.opponentScore} · pips ${pips.opponent}</text>`,
    `<text class="caption right" x="${WIDTH - MARGIN}" y="${HEIGHT - 6}">${length}</text>`,
    "</svg>");
  return parts.join("");
}
