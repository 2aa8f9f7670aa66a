// The board of a typed `board` message (docs/WEB-PROTOCOL.md) drawn as SVG text, from the
// player's side: its home board bottom right, its points labelled with its own numbers. Pure:
// the page sets the string as the holder's innerHTML, `node --test` reads it.
//
// The contract with the input code and the browser tests: each of the player's points is a
// <g data-point="p"> (p its own number 1-24, 25 its bar, 0 its off tray) holding a .hit-area
// rect; checkers are .checker.mine / .checker.theirs; each die has data-die and data-side.

import { BAR, OFF, diceLeft, diceOf, positionAfter } from "./play.js";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeText(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

// Every word the board shows or says to a screen reader, by key: the page may pass its own
// `labels(key, values)` to translate.
const ENGLISH = {
  board: () => "Backgammon board",
  point: ({ point, count, whose }) => `Point ${point}: ${checkersText(count, whose)}`,
  bar: ({ count }) => `Your bar: ${checkersText(count, "mine")}`,
  opponentBar: ({ count }) => `Opponent's bar: ${checkersText(count, "theirs")}`,
  off: ({ count }) => `Borne off: ${checkersText(count, "mine")}`,
  opponentOff: ({ count }) => `Opponent borne off: ${checkersText(count, "theirs")}`,
  die: ({ value, used }) => `Die ${value}${used ? ", used" : ""}`,
  opponentDie: ({ value }) => `Opponent's die ${value}`,
  cube: ({ value, owner }) => `Cube ${value}, ${owner === "player" ? "yours" : owner === "opponent" ? "the opponent's" : "in the middle"}`,
  cubeOffered: ({ value }) => `Cube offered at ${value}`,
  pips: ({ pips }) => `pips ${pips}`,
  score: ({ score }) => `score ${score}`,
  matchLength: ({ length }) => `${length}-point match`,
  unlimited: () => "unlimited match",
  crawford: () => "Crawford game",
};

function checkersText(count, whose) {
  if (count === 0) return "empty";
  return whose === "mine" ? `${count} of your checkers` : `${count} of the opponent's checkers`;
}

export const LABEL_KEYS = Object.keys(ENGLISH);

export function englishLabels(key, values = {}) {
  return ENGLISH[key](values);
}

// Geometry, in viewBox units: the SVG scales to its holder's width.
const WIDTH = 352;
const HEIGHT = 304;
const LEFT = 4;
const POINT_WIDTH = 24;
const BAR_WIDTH = 24;
const TRAY_X = LEFT + 12 * POINT_WIDTH + BAR_WIDTH + 4;
const TRAY_WIDTH = 28;
const TOP = 30;
const BOTTOM = 270;
const MIDDLE = (TOP + BOTTOM) / 2;
const BAR_X = LEFT + 6 * POINT_WIDTH;
const RADIUS = 10;
const STACK_SHOWN = 5;
const TIP_LENGTH = 100;
const DIE = 28;
const DIE_HIT = 44; // a die's pressable area: 44 px on a phone, larger than the die drawn

// Where own point p's column starts: 1-12 along the bottom from the right, 13-24 along the
// top from the left.
function pointX(point) {
  const column = point <= 12 ? 12 - point : point - 13;
  return LEFT + column * POINT_WIDTH + (column >= 6 ? BAR_WIDTH : 0);
}

// A stack from `base` toward the middle (`direction` +1 down, -1 up); past five checkers
// the fifth shows the count.
function stack(cx, base, count, whose, direction) {
  let svg = "";
  for (let i = 0; i < Math.min(count, STACK_SHOWN); i += 1) {
    const cy = base + direction * (RADIUS + i * 2 * RADIUS);
    svg += `<circle class="checker ${whose}" cx="${cx}" cy="${cy}" r="${RADIUS - 0.5}"/>`;
  }
  if (count > STACK_SHOWN) {
    const cy = base + direction * (RADIUS + (STACK_SHOWN - 1) * 2 * RADIUS);
    svg += `<text class="count ${whose}" x="${cx}" y="${cy + 4}">${count}</text>`;
  }
  return svg;
}

// Steps of the last move, as [from, to] pairs or {from, to} objects.
function endsOf(lastMove) {
  const from = new Set();
  const to = new Set();
  for (const step of lastMove) {
    const [a, b] = Array.isArray(step) ? step : [step.from, step.to];
    from.add(a);
    to.add(b);
  }
  return { from, to };
}

// Classes of a data-point group. The last move is the opponent's: its 0 and 25 are its bar
// and off, marked on the opponent's own groups, not on the player's tray and bar.
function marks(point, view, last) {
  const onBoard = point > OFF && point < BAR;
  return [view.selected === point && "selected", view.destinations.includes(point) && "destination",
    view.movable.includes(point) && "movable", onBoard && last.from.has(point) && "last-from",
    onBoard && last.to.has(point) && "last-to"].filter(Boolean).map((name) => ` ${name}`).join("");
}

function pointGroup(point, now, view, last, say) {
  const x = pointX(point);
  const onTop = point > 12;
  const base = onTop ? TOP : BOTTOM;
  const tip = onTop ? TOP + TIP_LENGTH : BOTTOM - TIP_LENGTH;
  const whose = now.mine[point] > 0 ? "mine" : now.theirs[point] > 0 ? "theirs" : null;
  const count = whose === "mine" ? now.mine[point] : now.theirs[point];
  const label = say("point", { point, count, whose });
  const numberY = onTop ? TOP - 4 : BOTTOM + 10;
  return `<g class="point${marks(point, view, last)}" data-point="${point}" role="button" tabindex="0" aria-label="${label}">`
    + `<rect class="hit-area" x="${x}" y="${onTop ? TOP : MIDDLE}" width="${POINT_WIDTH}" height="${MIDDLE - TOP}"/>`
    + `<polygon class="triangle ${point % 2 ? "odd" : "even"}" points="${x},${base} ${x + POINT_WIDTH},${base} ${x + POINT_WIDTH / 2},${tip}"/>`
    + `<text class="number" x="${x + POINT_WIDTH / 2}" y="${numberY}">${point}</text>`
    + stack(x + POINT_WIDTH / 2, base, count, whose, onTop ? 1 : -1)
    + "</g>";
}

// The bar: the player's checkers in its top half (they enter in the top right quarter),
// the opponent's in its bottom half.
function bars(now, view, last, say) {
  const cx = BAR_X + BAR_WIDTH / 2;
  return `<g class="point bar${marks(BAR, view, last)}" data-point="${BAR}" role="button" tabindex="0" aria-label="${say("bar", { count: now.mine[BAR] })}">`
    + `<rect class="hit-area" x="${BAR_X}" y="${TOP}" width="${BAR_WIDTH}" height="${MIDDLE - TOP}"/>`
    + stack(cx, MIDDLE - 4, now.mine[BAR], "mine", -1) + "</g>"
    + `<g class="bar theirs${last.from.has(0) ? " last-from" : ""}" role="img" aria-label="${say("opponentBar", { count: now.theirs[0] })}">`
    + stack(cx, MIDDLE + 4, now.theirs[0], "theirs", 1) + "</g>";
}

// Borne-off checkers as thin slices: the player's at the bottom of the tray (beside its
// home board), the opponent's at the top.
function slices(count, whose, fromY, direction) {
  let svg = "";
  for (let i = 0; i < count; i += 1) {
    const y = direction > 0 ? fromY + i * 5 : fromY - (i + 1) * 5;
    svg += `<rect class="checker ${whose} slice" x="${TRAY_X + 2}" y="${y}" width="${TRAY_WIDTH - 4}" height="4"/>`;
  }
  return svg;
}

function trays(now, view, last, say) {
  const mineOff = now.mine[OFF];
  const theirsOff = now.theirs[BAR];
  return `<g class="point tray${marks(OFF, view, last)}" data-point="${OFF}" role="button" tabindex="0" aria-label="${say("off", { count: mineOff })}">`
    + `<rect class="hit-area" x="${TRAY_X}" y="${MIDDLE}" width="${TRAY_WIDTH}" height="${BOTTOM - MIDDLE}"/>`
    + slices(mineOff, "mine", BOTTOM - 2, -1) + "</g>"
    + `<g class="tray theirs${last.to.has(BAR) ? " last-to" : ""}" role="img" aria-label="${say("opponentOff", { count: theirsOff })}">`
    + slices(theirsOff, "theirs", TOP + 2, 1) + "</g>";
}

function die(x, y, value, side, used, label) {
  const offset = (DIE_HIT - DIE) / 2;
  const role = side === "player" ? `role="button" tabindex="0"` : `role="img"`;
  return `<g class="die ${side === "player" ? "mine" : "theirs"}${used ? " used" : ""}" data-die="${value}" data-side="${side}" ${role} aria-label="${label}">`
    + `<rect class="hit-area" x="${x - offset}" y="${y - offset}" width="${DIE_HIT}" height="${DIE_HIT}"/>`
    + `<rect class="face" x="${x}" y="${y}" width="${DIE}" height="${DIE}" rx="4"/>`
    + `<text x="${x + DIE / 2}" y="${y + DIE / 2 + 5}">${value}</text></g>`;
}

// The player's dice right of the bar (a double as four), the opponent's left of it; a
// die used by the steps so far is dimmed.
function dice(board, steps, say) {
  const y = MIDDLE - DIE / 2;
  const half = 6 * POINT_WIDTH;
  // A double's four dice are closer: their pressable areas overlap, all the same die.
  const row = (values, centre) => {
    const spacing = Math.min(DIE_HIT, half / values.length);
    return values.map((value, i) => [centre - (values.length * spacing) / 2 + i * spacing + (spacing - DIE) / 2, value]);
  };
  const left = diceLeft(board, steps);
  let svg = "";
  for (const [x, value] of row(diceOf(board), BAR_X + BAR_WIDTH + half / 2)) {
    const index = left.indexOf(value);
    if (index >= 0) left.splice(index, 1);
    svg += die(x, y, value, "player", index < 0, say("die", { value, used: index < 0 }));
  }
  for (const [x, value] of row(board.opponent.dice ?? [], LEFT + half / 2)) {
    svg += die(x, y, value, "opponent", false, say("opponentDie", { value }));
  }
  return svg;
}

// The cube in the tray column: by its owner's side, in the middle when centred; not drawn
// in a game without doubling.
function cube(board, say) {
  if (!board.cube.in_game) return "";
  const { value, owner } = board.cube;
  const size = 24;
  const y = owner === "player" ? BOTTOM - 80 - size : owner === "opponent" ? TOP + 80 : MIDDLE - size / 2;
  const shown = value === 1 ? 64 : value;
  return `<g class="cube ${owner ?? "centred"}" role="img" aria-label="${say("cube", { value: shown, owner })}">`
    + `<rect x="${TRAY_X + 2}" y="${y}" width="${size}" height="${size}" rx="3"/>`
    + `<text x="${TRAY_X + 2 + size / 2}" y="${y + size / 2 + 5}">${shown}</text></g>`;
}

// A double offered and not yet answered: the cube at the value it would have, in the middle
// of the half of the board of the side that answers (the doubler puts it there).
function offeredCube(board, say) {
  if (board.offer?.kind !== "double") return "";
  const size = 30;
  const half = 6 * POINT_WIDTH;
  const centre = board.offer.by === "opponent" ? BAR_X + BAR_WIDTH + half / 2 : LEFT + half / 2;
  const x = centre - size / 2;
  const y = MIDDLE - size / 2;
  return `<g class="cube offered" role="img" aria-label="${say("cubeOffered", { value: board.offer.cube })}">`
    + `<rect x="${x}" y="${y}" width="${size}" height="${size}" rx="4"/>`
    + `<text x="${centre}" y="${y + size / 2 + 5}">${board.offer.cube}</text></g>`;
}

function pips(now) {
  let player = 0;
  let opponent = 0;
  for (let p = 1; p <= BAR; p += 1) player += now.mine[p] * p;
  for (let p = 0; p < BAR; p += 1) opponent += now.theirs[p] * (BAR - p);
  return { player, opponent };
}

// A side's line: turn marker, name, clock, score, pips; the match's length and the
// Crawford marker at the right of the player's line.
function captions(board, now, view, say) {
  const count = pips(now);
  const line = (side, y) => {
    const half = board[side];
    const clock = view.clocks[side];
    const turn = board.turn === side ? "▶ " : "";
    const words = [`${turn}${half.name}`, say("score", { score: half.score }), say("pips", { pips: count[side] })]
      .map(escapeText).join(" · ");
    // The clock in a tspan of its own: the page counts it down without redrawing the board.
    const shown = clock === null || clock === undefined ? ""
      : ` · <tspan class="clock" data-clock="${side}">${escapeText(clock)}</tspan>`;
    return `<text class="caption ${side}" x="${LEFT}" y="${y}">${words}${shown}</text>`;
  };
  const length = board.match_length === null ? say("unlimited") : say("matchLength", { length: board.match_length });
  const crawford = board.crawford.crawford_game ? ` · ${escapeText(say("crawford"))}` : "";
  return line("opponent", 14) + line("player", HEIGHT - 6)
    + `<text class="caption match right" x="${WIDTH - LEFT}" y="${14}">${escapeText(length)}${crawford}</text>`;
}

// The board as an SVG element's text. `view`: steps made so far, the opponent's last move,
// the point picked, the points to highlight (destinations, movable), the clocks' texts and
// the labels' translation.
export function boardSvg(board, view = {}) {
  const full = { steps: [], lastMove: [], selected: null, destinations: [], movable: [], clocks: {}, labels: englishLabels, ...view };
  const say = (key, values) => escapeText(full.labels(key, values));
  const now = positionAfter(board, full.steps);
  const last = endsOf(full.lastMove);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" class="board-view" role="group" aria-label="${say("board")}">`,
    `<rect class="felt" x="${LEFT}" y="${TOP}" width="${12 * POINT_WIDTH + BAR_WIDTH}" height="${BOTTOM - TOP}"/>`,
    `<rect class="bar-strip" x="${BAR_X}" y="${TOP}" width="${BAR_WIDTH}" height="${BOTTOM - TOP}"/>`,
    `<rect class="tray-strip" x="${TRAY_X}" y="${TOP}" width="${TRAY_WIDTH}" height="${BOTTOM - TOP}"/>`];
  for (let point = 1; point <= 24; point += 1) parts.push(pointGroup(point, now, full, last, say));
  parts.push(bars(now, full, last, say), trays(now, full, last, say), dice(board, full.steps, say),
    cube(board, say), offeredCube(board, say), captions(board, now, full, say), "</svg>");
  return parts.join("");
}
