// Assembling a move checker by checker from a typed `board` message (docs/WEB-PROTOCOL.md):
// which checkers may move, where each may go, when the steps make a whole play, and the
// FIBS command that sends it. Pure: no DOM, the page and `node --test` use the same.
//
// Numbering is the board message's: the player moves from 24 down to 1, its bar is 25 and
// off is 0; the opponent's bar is 0 and its off 25. A step is `{from, to, die}`.
//
// The server's `legal_plays` are the authority: every rule about using both dice or the
// larger die comes from them. The single-die steps generated here only know how one checker
// moves; a step is offered only if some completion with the dice left reaches a legal play.

export const BAR = 25;
export const OFF = 0;
const HOME_TOP = 6;

// The dice the player moves with this roll: four of a double, none without a roll.
export function diceOf(board) {
  const dice = board.player.dice;
  if (!dice) return [];
  const [a, b] = dice;
  return a === b ? [a, a, a, a] : [a, b];
}

// The dice not used yet by `steps`.
export function diceLeft(board, steps) {
  const left = diceOf(board);
  for (const step of steps) {
    const index = left.indexOf(step.die);
    if (index >= 0) left.splice(index, 1);
  }
  return left;
}

// Each side's checkers by point after `steps`: mine[p] for the player (mine[25] its bar,
// mine[0] borne off), theirs[p] for the opponent (theirs[0] its bar, theirs[25] borne off).
export function positionAfter(board, steps) {
  const mine = [board.player.off, ...board.player.points, board.player.bar];
  const theirs = [board.opponent.bar, ...board.opponent.points, board.opponent.off];
  for (const step of steps) applyStep(mine, theirs, step);
  return { mine, theirs };
}

function applyStep(mine, theirs, { from, to }) {
  mine[from] -= 1;
  mine[to] += 1;
  if (to !== OFF && theirs[to] === 1) { // a blot: hit, it goes to the opponent's bar
    theirs[to] = 0;
    theirs[0] += 1;
  }
}

function keyOf({ mine, theirs }) {
  return `${mine.join(",")}/${theirs.join(",")}`;
}

// One string per distinct position after `steps` (equal positions, equal keys).
export function resultKey(board, steps) {
  return keyOf(positionAfter(board, steps));
}

// Legal plays as steps without dice, [from, to] arrays.
function asSteps(play) {
  return play.map(([from, to]) => ({ from, to }));
}

// The set of result keys of the server's legal plays.
export function legalResults(board) {
  return new Set(board.legal_plays.map((play) => resultKey(board, asSteps(play))));
}

// How many steps a whole play takes: the server counts the steps of a typed move
// (rules/board/notation.py) and wants as many as its longest legal play has.
function stepsRequired(board) {
  return Math.max(0, ...board.legal_plays.map((play) => play.length));
}

// Every single-die step one checker could make in `now` with `die`, knowing nothing of
// the other dice: enter first, no landing on 2+ opponent checkers, bear off only with every
// checker home, a larger die only from the highest point.
function oneDieSteps(now, die) {
  const { mine, theirs } = now;
  const open = (to) => theirs[to] < 2;
  if (mine[BAR] > 0) return open(BAR - die) ? [{ from: BAR, to: BAR - die, die }] : [];
  const allHome = mine.slice(HOME_TOP + 1).every((count) => count === 0);
  const highest = allHome ? Math.max(...[...mine.keys()].filter((p) => p > OFF && mine[p] > 0)) : 0;
  const found = [];
  for (let from = 1; from < BAR; from += 1) {
    if (mine[from] === 0) continue;
    const to = from - die;
    if (to > OFF ? open(to) : allHome && (to === OFF || from === highest)) {
      found.push({ from, to: Math.max(to, OFF), die });
    }
  }
  return found;
}

function movesNow(now, dice) {
  return [...new Set(dice)].flatMap((die) => oneDieSteps(now, die));
}

function withoutDie(dice, die) {
  const left = [...dice];
  left.splice(left.indexOf(die), 1);
  return left;
}

// Whether `now`, with `dice` and `stepsToGo` steps still to make, can end in a legal
// result. Memoised per board: a double explores a few hundred states, many times over.
const searches = new WeakMap();

function canFinish(board, now, dice, stepsToGo) {
  if (!searches.has(board)) searches.set(board, { legal: legalResults(board), known: new Map() });
  const { legal, known } = searches.get(board);
  const state = `${keyOf(now)}|${[...dice].sort().join("")}|${stepsToGo}`;
  if (!known.has(state)) {
    const finishes = stepsToGo === 0
      ? legal.has(keyOf(now))
      : movesNow(now, dice).some((step) => canFinish(board, after(now, step), withoutDie(dice, step.die), stepsToGo - 1));
    known.set(state, finishes);
  }
  return known.get(state);
}

function after(now, step) {
  const next = { mine: [...now.mine], theirs: [...now.theirs] };
  applyStep(next.mine, next.theirs, step);
  return next;
}

// Every next single-die step after `steps` from which a legal play can still be reached.
export function singleSteps(board, steps) {
  const stepsToGo = stepsRequired(board) - steps.length;
  if (stepsToGo <= 0) return [];
  const now = positionAfter(board, steps);
  const dice = diceLeft(board, steps);
  return movesNow(now, dice).filter((step) => canFinish(board, after(now, step), withoutDie(dice, step.die), stepsToGo - 1));
}

// The points with a checker that can move now.
export function movablePoints(board, steps) {
  return [...new Set(singleSteps(board, steps).map((step) => step.from))];
}

// Where the checker on `from` can go next, by one die or several in a row (each landing
// legal), each `{to, steps}`. One way per destination: the fewest dice, then the larger die
// first (6-5 from 24 to 13 goes by 18), as the order of singleSteps gives it.
export function destinations(board, steps, from) {
  const found = new Map();
  let frontier = [{ at: from, path: [] }];
  while (frontier.length > 0) {
    const next = [];
    for (const { at, path } of frontier) {
      if (at === OFF) continue;
      const ahead = singleSteps(board, [...steps, ...path]).filter((step) => step.from === at)
        .sort((a, b) => b.die - a.die);
      for (const step of ahead) {
        if (found.has(step.to)) continue;
        const reached = { at: step.to, path: [...path, step] };
        found.set(step.to, reached.path);
        next.push(reached);
      }
    }
    frontier = next;
  }
  return [...found].map(([to, path]) => ({ to, steps: path }));
}

// The steps make a whole legal play: nothing more to move, the server would accept them.
export function isComplete(board, steps) {
  return board.legal_plays.length > 0 && steps.length === stepsRequired(board)
    && legalResults(board).has(resultKey(board, steps));
}

// The server's play `[[from, to], ...]` as steps with their dice, or null if it is not
// one of this roll's plays.
export function stepsOfPlay(board, play) {
  let steps = [];
  for (const [from, to] of play) {
    const step = singleSteps(board, steps).find((s) => s.from === from && s.to === to);
    if (!step) return null;
    steps = [...steps, step];
  }
  return isComplete(board, steps) ? steps : null;
}

// The only legal play, as steps, when the roll has exactly one; else null.
export function forcedPlay(board) {
  return board.legal_plays.length === 1 ? stepsOfPlay(board, board.legal_plays[0]) : null;
}

// A roll the player has to play, with no legal play.
export function cannotMove(board) {
  return board.phase === "move" && board.turn === "player" && board.player.dice !== null
    && board.legal_plays.length === 0;
}

// The FIBS command that plays `steps`: one from-to pair per die, `bar` and `off` as words.
// FIBS numbers points absolutely (rules/board/notation.py): O's own numbering is the absolute
// one, X's own point p is absolute 25 - p. The typed board is in the player's own
// numbering, so X's points are turned round here.
export function moveCommand(board, steps) {
  const word = (point) => {
    if (point === BAR) return "bar";
    if (point === OFF) return "off";
    return String(board.player.colour === "O" ? point : 25 - point);
  };
  return ["move", ...steps.map((step) => `${word(step.from)}-${word(step.to)}`)].join(" ");
}

// Takes back the last step; `steps` itself is left as it was.
export function undoLast(steps) {
  return steps.slice(0, -1);
}
