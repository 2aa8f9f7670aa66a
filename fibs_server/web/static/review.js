// A finished match's review, from /api/matches/<id> (its games' actions) and
// /api/matches/<id>/analysis (every decision judged, docs/WEB-API.md): the positions of each
// decision, decoded from gnubg's Position ID and played on; the equity graph as SVG text; the
// players' figures; and a position as the typed `board` message, for the page's board.
// Pure functions: the page and `node --test` use the same.
import { escapeText } from "./board_view.js";

// A position is two sides of 25 counts in each side's own numbering (gnubg's layout, as
// rules/board/position.py keeps it): index i is the side's point i + 1, index 24 its bar.
// `decider` is the side whose decision it is (on roll), `other` its opponent.
const POINTS = 24;
const BAR_INDEX = 24;
const CHECKERS = 15;
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// gnubg's Position ID: 14 base64 characters of 80 bits, little-endian (bit 0 of byte 0
// first); for each side in turn, points 1..24 then the bar, a 1-bit per checker then a 0.
// The side not on roll comes first (gnubg's anBoard[0]), the decider second.
export function decodePositionId(id) {
  if (typeof id !== "string" || id.length !== 14) throw new Error(`not a Position ID: ${id}`);
  const bits = [];
  let buffer = 0;
  let held = 0;
  for (const character of id) {
    const value = BASE64.indexOf(character);
    if (value < 0) throw new Error(`not a Position ID: ${id}`);
    buffer = (buffer << 6) | value;
    held += 6;
    if (held >= 8) {
      held -= 8;
      const byte = (buffer >> held) & 0xff;
      for (let bit = 0; bit < 8; bit += 1) bits.push((byte >> bit) & 1);
    }
  }
  let at = 0;
  const side = () => Array.from({ length: 25 }, () => {
    let count = 0;
    while (bits[at] === 1) {
      count += 1;
      at += 1;
    }
    at += 1; // the 0 that ends the point
    return count;
  });
  const other = side();
  const decider = side();
  if (sum(other) > CHECKERS || sum(decider) > CHECKERS) throw new Error(`not a Position ID: ${id}`);
  return { decider, other };
}

function sum(counts) {
  return counts.reduce((total, count) => total + count, 0);
}

// The decider's own point of one end of a step as `Decision.played` writes it: FIBS's
// absolute numbers, which are O's own and X's 25 - own; `bar` 25, `off` 0.
function ownPoint(word, colour) {
  if (word === "bar") return 25;
  if (word === "off") return 0;
  const absolute = Number(word);
  if (!Number.isInteger(absolute) || absolute < 1 || absolute > POINTS) {
    throw new Error(`not a point: ${word}`);
  }
  return colour === "O" ? absolute : 25 - absolute;
}

// The position after the decider plays `play` ("24-18 13-11", "bar-22 6-off"; empty: no
// legal play), the decider being `colour` (X or O) in that game. A checker landing on a
// lone checker of the other side sends it to its bar.
export function applyPlay(position, play, colour) {
  const decider = [...position.decider];
  const other = [...position.other];
  for (const step of play.split(" ").filter(Boolean)) {
    const [start, end] = step.split("-").map((word) => ownPoint(word, colour));
    if (end === undefined || decider[start - 1] === 0) throw new Error(`not a play here: ${play}`);
    decider[start - 1] -= 1;
    if (end === 0) continue; // borne off
    const facing = POINTS - end; // the other side's index of the same point
    if (other[facing] === 1) {
      other[facing] = 0;
      other[BAR_INDEX] += 1;
    } else if (other[facing] > 1) {
      throw new Error(`not a play here: ${play}`);
    }
    decider[end - 1] += 1;
  }
  return { decider, other };
}

// The player (0 or 1) a review is seen by: the one named (the profile it was opened from),
// else the first.
export function viewerOf(match, name) {
  const index = match.players.findIndex((player) => player.toLowerCase() === String(name).toLowerCase());
  return index < 0 ? 0 : index;
}

// A play as the viewer's board numbers its points, in the page's notation ("8/5 6/5"):
// FIBS's absolute numbers are O's own and X's 25 - own, so the viewer's own number of an
// absolute one depends on the viewer's colour in that game. bar and off are the mover's.
export function playAsSeen(play, viewerColour) {
  return play.split(" ").filter(Boolean).map((step) => step.split("-").map((word) => {
    if (word === "bar" || word === "off") return word;
    return String(viewerColour === "O" ? Number(word) : 25 - Number(word));
  }).join("/")).join(" ");
}

// Words of a cube or resignation decision, by the analysis's own words (bots/analysis.py),
// and the catalogues' keys the page shows them by.
const ACTION_WORDS = {
  "no double": "review.action.no_double", double: "review.action.double",
  take: "review.action.take", drop: "review.action.drop", beaver: "review.action.beaver",
  resign: "review.action.resign", accept: "review.action.accept",
  reject: "review.action.reject", "play on": "review.action.play_on",
};
export const ACTION_KEYS = Object.values(ACTION_WORDS);

// What a decision's `played` or `best` says to the viewer: a play in the viewer's numbers
// (`seenAs`: the viewer's colour in that game), a cube or resignation action in the page's
// language; `t` gives the words (i18n.js).
export function decisionText(kind, said, seenAs, t) {
  if (kind === "move") return said ? playAsSeen(said, seenAs) : t("review.no_play");
  return said in ACTION_WORDS ? t(ACTION_WORDS[said]) : said;
}

// Every decision of the analysis in order, with the positions to show: before it, after the
// play made and after the best play (a cube or resignation decision leaves the position as
// it is), the cube as it stood, and the viewer's colour in that game (`seenAs`: the board
// and the words are the viewer's throughout); and the series for the graph: each decision's
// equity from player 0's side, its error and the errors each player has made so far.
export function reviewSteps(match, analysis, viewer = 0) {
  const steps = [];
  const series = [];
  const lost = [0, 0];
  let cube = { game: 0, owner: null, doubler: null };
  analysis.decisions.forEach((decision, index) => {
    const game = match.games[decision.game - 1];
    if (cube.game !== decision.game) cube = { game: decision.game, owner: null, doubler: null };
    const colour = game.x_player === decision.player ? "X" : "O";
    const seenAs = game.x_player === viewer ? "X" : "O";
    const before = decodePositionId(decision.position_id);
    const moved = decision.kind === "move";
    const step = {
      game: decision.game, turn: decision.turn, player: decision.player,
      name: match.players[decision.player], colour, seenAs, kind: decision.kind,
      dice: decision.dice, played: decision.played, best: decision.best,
      error: decision.error, skill: decision.skill, forced: decision.forced,
      luck: decision.luck, cube: decision.cube, cubeOwner: cube.owner,
      score: game.score, matchLength: match.length, before,
      afterPlayed: moved ? applyPlay(before, decision.played, colour) : before,
      afterBest: moved ? applyPlay(before, decision.best, colour) : before,
    };
    steps.push(step);
    if (decision.kind === "double") cube.doubler = decision.player;
    // The first taker keeps the cube, whoever took the instant redoubles after.
    if (decision.kind === "take") cube.owner = 1 - cube.doubler;
    lost[decision.player] += decision.error;
    series.push({
      index, game: decision.game, player: decision.player, skill: decision.skill,
      error: decision.error,
      equity: decision.player === 0 ? decision.played_equity : -decision.played_equity,
      lost: [...lost], name: step.name, kind: decision.kind, seenAs,
      played: decision.played, best: decision.best,
    });
  });
  return { steps, series };
}

const GRAPH_WIDTH = 320;
const GRAPH_HEIGHT = 140;
const GRAPH_PAD = 22;
// Marks by the analysis's skill words (bots/analysis.py: doubtful > 0.04, bad > 0.08,
// very bad > 0.16 EMG): bad ones are errors, very bad ones blunders.
const MARKS = { doubtful: "doubtful", bad: "error", "very bad": "blunder" };
export const SKILLS = Object.keys(MARKS);
// The rows of the players' summary, in order: the fields of summaryRows' objects.
export const SUMMARY_FIELDS = ["unforcedDecisions", "errorRate", "checkerErrorRate", "cubeErrorRate",
  "pr", "rating", "luck", "doubtful", "errors", "blunders"];

// The equity after each decision from the first player's side (+1 top, -1 bottom), a line
// between games, and a mark on each doubtful play, error and blunder. `names`: the players';
// `t` gives the words (i18n.js).
export function equityGraphSvg(series, names, t) {
  const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${GRAPH_WIDTH} ${GRAPH_HEIGHT}" class="plot equity" role="img" aria-label="${escapeText(t("review.graph"))}">`;
  if (series.length === 0) {
    return `${head}<text class="empty" x="${GRAPH_WIDTH / 2}" y="${GRAPH_HEIGHT / 2}">${escapeText(t("review.graph_empty"))}</text></svg>`;
  }
  const title = (point) => t(point.error > 0 ? "review.graph_error" : "review.graph_point", {
    game: point.game, name: point.name,
    played: decisionText(point.kind, point.played, point.seenAs, t),
    best: decisionText(point.kind, point.best, point.seenAs, t), error: point.error.toFixed(3) });
  const x = (i) => GRAPH_PAD + (i * (GRAPH_WIDTH - GRAPH_PAD - 8)) / Math.max(1, series.length - 1);
  const y = (equity) => {
    const clamped = Math.max(-1, Math.min(1, equity));
    return GRAPH_PAD / 2 + ((1 - clamped) * (GRAPH_HEIGHT - GRAPH_PAD)) / 2;
  };
  const parts = [head,
    `<line class="axis" x1="${GRAPH_PAD}" y1="${y(0)}" x2="${GRAPH_WIDTH - 8}" y2="${y(0)}"/>`,
    `<text class="tick" x="${GRAPH_PAD - 3}" y="${y(1) + 4}">+1</text>`,
    `<text class="tick" x="${GRAPH_PAD - 3}" y="${y(-1) + 4}">-1</text>`];
  series.forEach((point, i) => {
    if (i > 0 && point.game !== series[i - 1].game) {
      const between = ((x(i - 1) + x(i)) / 2).toFixed(1);
      parts.push(`<line class="game-break" x1="${between}" y1="${y(1)}" x2="${between}" y2="${y(-1)}"/>`);
    }
  });
  const line = series.map((point, i) => `${x(i).toFixed(1)},${y(point.equity).toFixed(1)}`).join(" ");
  parts.push(`<polyline class="equity-line" points="${line}"/>`);
  series.forEach((point, i) => {
    const mark = MARKS[point.skill];
    if (!mark) return;
    parts.push(`<circle class="mark ${mark}" data-step="${i}" cx="${x(i).toFixed(1)}" cy="${y(point.equity).toFixed(1)}" r="${mark === "blunder" ? 4 : 3}"><title>${escapeText(title(point))}</title></circle>`);
  });
  parts.push(`<text class="caption" x="${GRAPH_PAD}" y="${GRAPH_HEIGHT - 2}">${escapeText(t("review.graph_caption", { up: names[0], down: names[1] }))}</text>`, "</svg>");
  return parts.join("");
}

// The players' summary table, a row each, as gnubg's `show statistics` gives it: the error
// rate (mEMG per unforced decision), the PR, the rating words, the luck (EMG) and the marks.
// gnubg's words for an error rate, as the analysis stores them (bots/analysis.py), and the
// catalogues' keys the page shows them by.
const RATING_WORDS = {
  Supernatural: "rating_words.supernatural", "World class": "rating_words.world_class",
  Expert: "rating_words.expert", Advanced: "rating_words.advanced",
  Intermediate: "rating_words.intermediate", "Casual player": "rating_words.casual_player",
  Beginner: "rating_words.beginner", "Awful!": "rating_words.awful",
};

// The words of a stored rating in the page's language (as stored if the page has none).
export const ratingWords = (rating, t) => (rating in RATING_WORDS ? t(RATING_WORDS[rating]) : rating);

// The players' figures as the summary shows them; `t` gives the rating words (i18n.js).
export function summaryRows(analysis, names, t) {
  return analysis.players.map((summary) => ({
    name: names[summary.player],
    unforcedDecisions: summary.unforced_decisions,
    errorRate: summary.error_rate.toFixed(1),
    checkerErrorRate: summary.checker_error_rate.toFixed(1),
    cubeErrorRate: summary.cube_error_rate.toFixed(1),
    pr: summary.pr.toFixed(1),
    rating: ratingWords(summary.rating, t),
    luck: (summary.luck >= 0 ? "+" : "") + summary.luck.toFixed(3),
    doubtful: summary.doubtful,
    errors: summary.bad,
    blunders: summary.very_bad,
  }));
}

// Which scale the summary is on and at what depth it was judged, then a line for each player
// whose error rate is below the judge's resolution (`belowResolution`: the analysis
// endpoint's, per player); `t` gives the words (i18n.js).
export function scaleNotes(analysis, belowResolution, names, t) {
  return [
    t("review.scale", { plies: analysis.plies, gnubg: analysis.plies - 1 }),
    ...names.filter((_, player) => belowResolution[player])
      .map((name) => t("review.below_resolution", { name })),
  ];
}

// One side of a typed board, seen by the viewer: `own` in that side's own numbering;
// `facing` turns it into the viewer's (docs/WEB-PROTOCOL.md, "Sides and numbering": the
// viewer's own point p is the opponent's 25 - p).
function half(own, facing, name, colour, score, dice) {
  const points = new Array(POINTS).fill(0);
  for (let i = 0; i < POINTS; i += 1) points[facing ? POINTS - 1 - i : i] = own[i];
  return {
    name, colour, score, points, bar: own[BAR_INDEX], off: CHECKERS - sum(own),
    pips: own.reduce((pips, count, i) => pips + count * (i + 1), 0), dice, may_double: false,
  };
}

// A review position as the typed `board` message (as a watcher's: nothing to click), seen
// by `viewer` (0 or 1; the page keeps one for the whole review): `names` are player 0's and
// 1's; `step` gives whose decision it is and the match's state then (reviewSteps' fields).
export function toBoardMessage(position, names, step, viewer) {
  const deciderViews = viewer === step.player;
  const colours = step.colour === "X" ? { decider: "X", other: "O" } : { decider: "O", other: "X" };
  const deciderHalf = half(position.decider, !deciderViews, names[step.player], colours.decider,
    step.score[step.player], step.kind === "move" ? step.dice : null);
  const otherHalf = half(position.other, deciderViews, names[1 - step.player], colours.other,
    step.score[1 - step.player], null);
  const side = (player) => (player === viewer ? "player" : "opponent");
  return {
    type: "board", as_player: false,
    phase: step.kind === "move" ? "move" : "roll_or_double",
    turn: side(step.player),
    player: deciderViews ? deciderHalf : otherHalf,
    opponent: deciderViews ? otherHalf : deciderHalf,
    match_length: step.matchLength,
    cube: {
      value: step.cube, owner: step.cubeOwner === null ? null : side(step.cubeOwner),
      in_game: step.matchLength !== 1,
    },
    offer: null, pieces_to_move: 0, legal_plays: [],
    crawford: { rule: true, crawford_game: false, post_crawford: false },
    max_redoubles: null, checkers_per_side: CHECKERS, clock: null,
  };
}
