// The page: one WebSocket to the server, which it talks to as a CLIP client (the same
// commands a telnet user types). Everything the server says is read by clip.js; what people
// typed (names, chat) reaches the page only as text nodes or escaped SVG text.
import { clockLabel, parseLine, splitMessage } from "./clip.js";
import * as boards from "./board.js";
import { ratingPlotSvg, ratingsListSvg } from "./plot.js";

const $ = (id) => document.getElementById(id);
const LOG_LINES = 300;
const noGame = $("no-game"); // what the board's place says before the first board
// The session token (docs/WEB-PROTOCOL.md): this tab's way back to its session after a
// reload or a lost network, for as long as the server holds the session.
const TOKEN_KEY = "fibs-session-token";
const RECONNECT_FIRST_MS = 300;
const RECONNECT_MAX_MS = 5000;
const NORMAL_CLOSURE = 1000; // the server closed on purpose (bye, kicked, shut down)

const page = {
  socket: null,
  dialogue: "connecting", // connecting, login, guest, online, closed
  intent: null, // what the welcome forms asked for: {kind: "login" | "register" | "visitor", ...}
  me: null,
  who: new Map(),
  invitationsIn: new Map(),
  lastInvitation: null, // [the map, the name] a following terms line belongs to
  invitationsOut: new Map(),
  board: null,
  steps: [],
  preferredDie: null,
  moveSent: false,
  resignOffered: false,
  ratingRows: null, // rows of a `ratings` reply being read
  clock: null, // a timed match's clock: {side, decision, opponent, endsAt (performance.now())}
  clockTick: null,
  reconnects: 0, // attempts since the connection was lost
};

const savedToken = () => sessionStorage.getItem(TOKEN_KEY);
const forgetToken = () => sessionStorage.removeItem(TOKEN_KEY);

// --- the connection ------------------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // events=1: typed messages beside the FIBS lines (docs/WEB-PROTOCOL.md); the page reads
  // the clock from them, the rest still from the lines.
  const socket = new WebSocket(`${scheme}://${location.host}/ws?events=1`);
  page.socket = socket;
  page.dialogue = "connecting";
  socket.addEventListener("message", (event) => receive(event.data));
  socket.addEventListener("close", (event) => {
    if (page.socket !== socket) return;
    const wasOnline = page.dialogue === "online" || page.dialogue === "resuming";
    if (event.code === NORMAL_CLOSURE) forgetToken();
    if (wasOnline && savedToken()) {
      // Lost, not closed by the server: the server holds the session a while; back to it.
      page.dialogue = "reconnecting";
      $("status").textContent = "Connection lost: reconnecting…";
      const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** page.reconnects);
      page.reconnects += 1;
      setTimeout(connect, delay);
      return;
    }
    page.dialogue = "closed";
    showWelcome(wasOnline ? "You are logged out." : null);
    setTimeout(connect, RECONNECT_FIRST_MS); // a fresh login prompt for the forms
  });
}

function send(line) {
  if (page.socket && page.socket.readyState === WebSocket.OPEN) page.socket.send(line);
}

function receive(text) {
  const { lines, prompt } = splitMessage(text);
  for (const line of lines) handleLine(line);
  if (page.ratingRows !== null) { // a `ratings` reply comes in one message
    $("ratings-list").innerHTML = ratingsListSvg(page.ratingRows);
    page.ratingRows = null;
  }
  if (prompt !== null) handlePrompt(prompt);
}

// --- logging in, registering, visiting ------------------------------------------------------

function handlePrompt(prompt) {
  if ((prompt === "login: " || prompt === "\r\nlogin: ") && page.dialogue === "connecting"
      && savedToken()) {
    page.dialogue = "resuming"; // a reload, or a new connection after a lost one
    $("status").textContent = "Reconnecting…";
    send(`resume ${savedToken()}`);
  } else if (prompt === "login: " || prompt === "\r\nlogin: ") {
    const failedLogin = page.dialogue === "login" && page.intent?.kind === "login";
    page.dialogue = "login";
    setFormsEnabled(true);
    if (failedLogin) welcomeMessage("That name and password do not match.");
    page.intent = null;
  } else if (prompt === "> " && page.dialogue === "guest" && page.intent?.kind === "register") {
    // The guest prompt: first for the name; again after a refusal (shown): then leave, and
    // the connection that follows offers the login prompt to every form again.
    if (page.intent.failed) {
      page.intent = null;
      send("bye");
    } else {
      send(`name ${page.intent.name}`);
    }
  } else if (prompt.startsWith("Please give your password") && page.intent) {
    // Asked again: the server refused the password (too short, say). It is never sent
    // twice: the refusal is shown, and an empty password goes back to the guest prompt.
    if (page.intent.passwordSent && !page.intent.failed) {
      welcomeMessage(page.intent.lastSaid ?? "The server refused that password.");
      page.intent.failed = true;
    }
    send(page.intent.failed ? "" : page.intent.password);
    page.intent.passwordSent = true;
  } else if (prompt.startsWith("Please retype your password") && page.intent) {
    send(page.intent.password);
  }
}

function setFormsEnabled(enabled) {
  for (const form of ["visitor-form", "login-form", "register-form"]) {
    $(form).querySelector("button").disabled = !enabled;
  }
  $("status").textContent = enabled ? "Not logged in" : "Connecting…";
}

function welcomeMessage(text) {
  $("welcome-message").textContent = text;
}

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("login-name").value.trim();
  const password = $("login-password").value;
  if (page.dialogue !== "login" || /\s/.test(name) || /\s/.test(password)) {
    welcomeMessage("Names and passwords have no spaces.");
    return;
  }
  welcomeMessage("");
  page.intent = { kind: "login", name };
  send(`login web 1008 ${name} ${password}`);
});

$("register-form").addEventListener("submit", (event) => {
  event.preventDefault();
  welcomeMessage("");
  page.intent = { kind: "register", name: $("register-name").value.trim(),
    password: $("register-password").value };
  if (page.dialogue === "guest") send(`name ${page.intent.name}`);
  else if (page.dialogue === "login") { page.dialogue = "guest"; send("guest"); }
});

$("visitor-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (page.dialogue !== "login" && page.dialogue !== "guest") return;
  welcomeMessage("");
  page.intent = { kind: "visitor" };
  send(`bot ${$("visitor-level").value} ${$("visitor-length").value}`);
});

$("logout").addEventListener("click", () => { forgetToken(); send("bye"); });

function showWelcome(message) {
  $("room").hidden = true;
  $("welcome").hidden = false;
  $("logout").hidden = true;
  setFormsEnabled(false);
  Object.assign(page, { me: null, board: null, steps: [], intent: null });
  page.who.clear();
  page.invitationsIn.clear();
  page.clock = null;
  renderClock();
  page.invitationsOut.clear();
  $("board-holder").replaceChildren(noGame);
  if (message) welcomeMessage(message);
}

function enterRoom(name) {
  page.dialogue = "online";
  page.reconnects = 0;
  page.me = name;
  $("welcome").hidden = true;
  $("room").hidden = false;
  $("logout").hidden = false;
  $("status").textContent = `Logged in as ${name}`;
  $("history-name").value = name;
  send("set boardstyle 3");
  // A visitor's bot match began with their first command, before boards were board: lines.
  if (page.intent?.kind === "visitor") send("board");
  page.intent = null;
}

// --- what the server says -----------------------------------------------------------------

function handleLine(line) {
  if (line.startsWith("{")) { handleMessage(JSON.parse(line)); return; }
  const said = parseLine(line);
  switch (said.kind) {
    case "welcome": enterRoom(said.name); break;
    case "own info":
      // Boards after one's own roll too, so the page knows the dice it moves with.
      if (said.toggles.moreboards === "0") send("toggle moreboards");
      break;
    case "who":
      page.who.set(said.user.name, said.user);
      if (said.user.name === page.me) $("ready").checked = said.user.ready;
      renderWho();
      break;
    case "logout": page.who.delete(said.name); renderWho(); break;
    case "login": case "motd start": case "motd end": case "who end": case "clock": case "": break;
    case "chat": chat(said); break;
    case "board": showBoard(said.board); break;
    case "invited":
      page.invitationsIn.set(said.from, said.match); page.lastInvitation = [page.invitationsIn, said.from];
      renderInvitations(); log(line); break;
    case "invitation terms": { // the line after FIBS's invitation (or confirmation) of a timed or variant match
      const [invitations, name] = page.lastInvitation ?? [new Map(), ""];
      if (invitations.has(name)) {
        invitations.set(name, `${invitations.get(name)} (${said.terms})`);
        renderInvitations();
      }
      log(line); break;
    }
    case "you invited":
      page.invitationsOut.set(said.to, said.match); page.lastInvitation = [page.invitationsOut, said.to];
      renderInvitations(); log(line); break;
    case "game starts":
      page.invitationsIn.delete(said.opponent);
      page.invitationsOut.delete(said.opponent);
      renderInvitations();
      gameStatus(line);
      break;
    case "resign offered": page.resignOffered = true; gameStatus(line); renderControls(); break;
    case "match over": gameStatus(line); log(line); break;
    case "rating row": if (page.ratingRows !== null) page.ratingRows.push(said); else log(line); break;
    default: text(line);
  }
}

function text(line) {
  if (line.startsWith(" rank name")) { page.ratingRows = []; return; }
  if (page.dialogue !== "online") {
    if (line.trim() && page.intent) page.intent.lastSaid = line.replace(/^\*\* /, "");
    if (line.startsWith("** ") && page.intent && !page.intent.failed) {
      welcomeMessage(line.slice(3));
      page.intent.failed = true;
    }
    return;
  }
  if (page.moveSent && line.startsWith("** ")) { // the server refused the move
    page.moveSent = false;
    page.steps = [];
    renderBoard();
  }
  if (/^(You roll|.* rolls|.* moves|Please move|You can't move|.* can't move|.*double|.*wins|.*resign|.*accept|.*reject|It's your turn|\*\* )/.test(line)) {
    gameStatus(line);
  }
  log(line);
}

function log(line) {
  appendTo($("server-log"), line);
}

function appendTo(box, line) {
  const entry = document.createElement("div");
  entry.textContent = line;
  box.append(entry);
  while (box.childElementCount > LOG_LINES) box.firstElementChild.remove();
  box.scrollTop = box.scrollHeight;
}

function chat(said) {
  const words = {
    says: `${said.name} says: ${said.text}`, shouts: `${said.name} shouts: ${said.text}`,
    whispers: `${said.name} whispers: ${said.text}`, kibitzes: `${said.name} kibitzes: ${said.text}`,
    "you say": `You say to ${said.name}: ${said.text}`, "you shout": `You shout: ${said.text}`,
    "you whisper": `You whisper: ${said.text}`, "you kibitz": `You kibitz: ${said.text}`,
  };
  appendTo($("chat-log"), words[said.how]);
}

function gameStatus(line) {
  $("game-status").textContent = line;
}

// --- the room ----------------------------------------------------------------------------

function button(label, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  element.addEventListener("click", onClick);
  return element;
}

function renderWho() {
  const body = $("who").querySelector("tbody");
  body.textContent = "";
  const names = [...page.who.keys()].sort((a, b) => a.localeCompare(b));
  for (const name of names) {
    const user = page.who.get(name);
    const row = body.insertRow();
    row.dataset.name = name;
    const status = user.opponent ? `playing ${user.opponent}`
      : user.watching ? `watching ${user.watching}` : user.ready ? "ready" : "";
    for (const value of [name, user.rating.toFixed(2), String(user.experience),
      status + (user.away ? " (away)" : "")]) {
      row.insertCell().textContent = value;
    }
    const actions = row.insertCell();
    if (name === page.me) continue;
    actions.append(
      button("Invite", () => send(`invite ${name} ${$("invite-length").value}`)),
      button("Watch", () => send(`watch ${name}`)),
      button("Tell", () => { $("chat-kind").value = "tell"; $("chat-to").value = name; chatKindChanged(); $("chat-text").focus(); }));
  }
}

function renderInvitations() {
  const incoming = $("invitations-in");
  incoming.textContent = "";
  for (const [name, match] of page.invitationsIn) {
    const item = document.createElement("li");
    item.textContent = `${name} invites you to ${match} `;
    item.append(button("Join", () => send(`join ${name}`)));
    incoming.append(item);
  }
  const outgoing = $("invitations-out");
  outgoing.textContent = "";
  for (const [name, match] of page.invitationsOut) {
    const item = document.createElement("li");
    item.textContent = `You invited ${name} to ${match}`;
    outgoing.append(item);
  }
}

function chatKindChanged() {
  $("chat-to").hidden = $("chat-kind").value !== "tell";
}
$("chat-kind").addEventListener("change", chatKindChanged);

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const kind = $("chat-kind").value;
  const words = $("chat-text").value.replace(/[\r\n]+/g, " ");
  send(kind === "tell" ? `tell ${$("chat-to").value.trim()} ${words}` : `${kind} ${words}`);
  $("chat-text").value = "";
});

$("command-form").addEventListener("submit", (event) => {
  event.preventDefault();
  send($("command").value.replace(/[\r\n]+/g, " "));
  $("command").value = "";
});

// The server answers `toggle ready` with the user's new who line, which sets the box.
$("ready").addEventListener("click", (event) => { event.preventDefault(); send("toggle ready"); });

$("show-ratings").addEventListener("click", () => send("ratings"));

$("history-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("history-name").value.trim();
  const answer = await fetch(`/api/rating-history?name=${encodeURIComponent(name)}`);
  if (!answer.ok) {
    $("rating-plot").textContent = `No player called ${name}.`;
    return;
  }
  const history = await answer.json();
  $("rating-plot").innerHTML = ratingPlotSvg(history.name, history.changes);
});

// --- the board ---------------------------------------------------------------------------

// A typed message (docs/WEB-PROTOCOL.md). Only the session token and the board's clock are
// read from them so far.
function handleMessage(message) {
  if (message.type === "session") {
    if (message.token) {
      sessionStorage.setItem(TOKEN_KEY, message.token);
    } else { // refused: the session is over (the login prompt follows)
      forgetToken();
      if (page.dialogue === "resuming") {
        page.dialogue = "connecting";
        showWelcome("You are logged out.");
      }
    }
    return;
  }
  if (message.type !== "board") return;
  page.clock = message.clock && {
    ...message.clock, opponent: message.opponent.name,
    endsAt: performance.now() + message.clock.seconds * 1000,
  };
  renderClock();
}

function renderClock() {
  const shown = $("clock");
  clearTimeout(page.clockTick);
  if (!page.clock) { shown.hidden = true; return; }
  const left = (page.clock.endsAt - performance.now()) / 1000;
  shown.textContent = clockLabel(page.clock, left, page.clock.opponent);
  shown.hidden = false;
  if (left > 0) page.clockTick = setTimeout(renderClock, 250);
}

function showBoard(board) {
  page.board = board;
  page.steps = [];
  page.preferredDie = null;
  page.moveSent = false;
  if (!board.wasDoubled && boards.whoseTurn(board) === "player") page.resignOffered = false;
  renderBoard();
}

function renderBoard() {
  if (!page.board) return;
  $("board-holder").innerHTML = boards.boardSvg(page.board, page.steps);
  renderControls();
}

function renderControls() {
  const board = page.board;
  const playing = board && !boards.isWatching(board);
  const myTurn = playing && boards.whoseTurn(board) === "player";
  const rolled = boards.rolledDice(board || { playerDice: [0, 0] }).length > 0;
  const answering = playing && (board.wasDoubled || page.resignOffered);
  const show = {
    roll: myTurn && !rolled && !answering,
    double: myTurn && !rolled && !answering && board.playerMayDouble,
    accept: answering, reject: answering,
    "undo-step": page.steps.length > 0 && !page.moveSent,
    "take-back": playing && (page.me?.startsWith("guest_") || board.opponent.startsWith("bot_")),
    resign: playing && board.turn !== 0,
    unwatch: board && !playing,
  };
  for (const [id, visible] of Object.entries(show)) $(id).hidden = !visible;
}

$("board-holder").addEventListener("click", (event) => {
  const board = page.board;
  if (!board || boards.isWatching(board) || page.moveSent) return;
  const die = event.target.closest("[data-die]");
  if (die) { page.preferredDie = Number(die.dataset.die); return; }
  const point = event.target.closest("[data-point]");
  if (!point || boards.whoseTurn(board) !== "player") return;
  const step = boards.clickStep(board, page.steps, Number(point.dataset.point), page.preferredDie);
  if (!step) { gameStatus("That checker cannot move with the dice left."); return; }
  page.steps.push(step);
  if (page.steps.length === board.canMove || boards.diceLeft(board, page.steps).length === 0) {
    page.moveSent = true;
    send(boards.moveCommand(board, page.steps));
  }
  renderBoard();
});

$("undo-step").addEventListener("click", () => { page.steps.pop(); renderBoard(); });
$("take-back").addEventListener("click", () => send("undo"));
for (const command of ["roll", "double", "accept", "reject", "unwatch"]) {
  $(command).addEventListener("click", () => {
    if (command === "accept" || command === "reject") page.resignOffered = false;
    send(command);
  });
}
$("resign").addEventListener("click", () => send("resign n"));

connect();
