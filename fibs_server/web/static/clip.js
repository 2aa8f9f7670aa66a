// What the server says, read: CLIP lines (docs/PROTOCOL.md), board: lines (docs/BOARDS.md) and the
// few sentences the page acts on. Pure functions: the page and `node --test` use the same.

// One WebSocket message is one flush of the server's output: whole lines, each ending in
// CR LF, and perhaps a prompt at its end (`login: `, `Please give your password: `).
export function splitMessage(text) {
  const parts = text.split("\r\n");
  const prompt = parts.pop();
  return { lines: parts, prompt: prompt === "" ? null : prompt };
}

const CHAT = {
  12: "says", 13: "shouts", 14: "whispers", 15: "kibitzes",
  16: "you say", 17: "you shout", 18: "you whisper", 19: "you kibitz",
};

const WHO_FIELDS = ["name", "opponent", "watching", "ready", "away", "rating", "experience",
  "idle", "login", "host", "client", "email"];

// `-` means none in CLIP lines.
const orNone = (word) => (word === "-" ? null : word);

function whoInfo(words) {
  const info = {};
  WHO_FIELDS.forEach((field, i) => { info[field] = words[i]; });
  return {
    name: info.name, opponent: orNone(info.opponent), watching: orNone(info.watching),
    ready: info.ready === "1", away: info.away === "1", rating: Number(info.rating),
    experience: Number(info.experience), client: orNone(info.client),
  };
}

const OWN_INFO_TOGGLES = ["allowpip", "autoboard", "autodouble", "automove", "away", "bell",
  "crawford", "double", "experience", "greedy", "moreboards", "moves", "notify", "rating",
  "ratings", "ready", "redoubles", "report", "silent", "timezone"];

// Sentences the page acts on; every other line is shown as it came.
const SENTENCES = [
  [/^(\S+) wants to play (an? .*match) with you\.$/, (m) => ({ kind: "invited", from: m[1], match: m[2] })],
  [/^(\S+) wants to resume a saved match with you\.$/,
    (m) => ({ kind: "invited", from: m[1], match: "resume a saved match" })],
  [/^The match is played with: (.*)\.$/, (m) => ({ kind: "invitation terms", terms: m[1] })],
  [/^Clock: \S+ has \d+ seconds to .*\.$/, () => ({ kind: "clock" })], // shown from the board message
  [/^\*\* You invited (\S+) to (.*)\.$/, (m) => ({ kind: "you invited", to: m[1], match: m[2] })],
  [/^Starting a new game with (\S+)\.$/, (m) => ({ kind: "game starts", opponent: m[1] })],
  [/^(\S+) wants to resign\. You will win/, (m) => ({ kind: "resign offered", from: m[1] })],
  [/^(You|\S+) wins? the (\d+) point match/, (m) => ({ kind: "match over", winner: m[1] })],
  [/^\s*(\*?)\s*(\d+)\s+(\S+)\s+(\d+\.\d\d)\s+(\d+)$/,
    (m) => ({ kind: "rating row", rank: Number(m[2]), name: m[3], rating: Number(m[4]),
      experience: Number(m[5]), own: m[1] === "*" })],
];

// One line, classified: {kind, ...fields}. Unknown lines are {kind: "text", text}.
export function parseLine(line) {
  if (line.startsWith("board:")) {
    const board = parseBoard(line);
    return board ? { kind: "board", board } : { kind: "text", text: line };
  }
  const words = line.split(" ");
  const number = /^\d+$/.test(words[0]) ? Number(words[0]) : null;
  if (number === 1 && words.length === 4) {
    return { kind: "welcome", name: words[1] };
  }
  if (number === 2 && words.length === 22) {
    const toggles = {};
    OWN_INFO_TOGGLES.forEach((field, i) => { toggles[field] = words[i + 2]; });
    return { kind: "own info", name: words[1], toggles };
  }
  if ((number === 3 || number === 4 || number === 6) && words.length === 1) {
    return { kind: ["motd start", "motd end", "", "who end"][number - 3] };
  }
  if (number === 5 && words.length === 13) {
    return { kind: "who", user: whoInfo(words.slice(1)) };
  }
  if ((number === 7 || number === 8) && words.length >= 2) {
    return { kind: number === 7 ? "login" : "logout", name: words[1],
      text: words.slice(2).join(" ") };
  }
  if (number in CHAT && words.length >= 2) {
    // 12-15: someone's words; 16 and 18-19 echo yours (16 names whom you told).
    const hasName = number <= 16;
    return { kind: "chat", how: CHAT[number], name: hasName ? words[1] : null,
      text: words.slice(hasName ? 2 : 1).join(" ") };
  }
  for (const [pattern, make] of SENTENCES) {
    const found = pattern.exec(line);
    if (found) return make(found);
  }
  return { kind: "text", text: line };
}

const BOARD_FIELDS = 52;

// The board: line's 52 fields, named, from the viewer's side (the player, or the watched
// player when watching). `points`: 26 counts in absolute numbering, O positive, X negative.
export function parseBoard(line) {
  const fields = line.slice("board:".length).split(":");
  if (fields.length !== BOARD_FIELDS) return null;
  const n = fields.slice(2).map(Number);
  if (n.some((value) => !Number.isInteger(value))) return null;
  const at = (field) => n[field - 3]; // fields are numbered from 1, names are 1 and 2
  return {
    player: fields[0], opponent: fields[1],
    matchLength: at(3) === 9999 ? null : at(3),
    playerScore: at(4), opponentScore: at(5),
    points: n.slice(3, 29),
    turn: at(32),
    playerDice: [at(33), at(34)], opponentDice: [at(35), at(36)],
    cube: at(37), playerMayDouble: at(38) === 1, opponentMayDouble: at(39) === 1,
    wasDoubled: at(40) === 1,
    colour: at(41), direction: at(42),
    playerOff: at(45), opponentOff: at(46), playerBar: at(47), opponentBar: at(48),
    canMove: at(49),
    postCrawford: at(51) === 1,
  };
}

const DECISIONS = {
  roll_or_double: "roll or double", move: "move", double_offered: "answer the double",
  resign_offered: "answer the resignation", between_games: "join the next game",
};

// The clock of a timed match, from a typed board message's `clock` ({side, seconds,
// decision}) and the seconds left now: e.g. "Your time to move: 27 s".
export function clockLabel(clock, secondsLeft, opponentName) {
  const whose = clock.side === "player" ? "Your" : `${opponentName}'s`;
  const decision = DECISIONS[clock.decision] ?? clock.decision;
  return `${whose} time to ${decision}: ${Math.max(0, Math.ceil(secondsLeft))} s`;
}
