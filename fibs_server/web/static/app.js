// The page: one WebSocket to the server, opened for its typed messages (docs/WEB-PROTOCOL.md).
// The page reads those messages, the login dialogue's prompts and CLIP's numbered welcome
// line, never FIBS's English sentences: those go, as they came, to the console tab only.
import { splitMessage, welcomeName } from "./clip.js";
import * as game from "./game.js";
import * as matchEnd from "./match_end.js";
import * as room from "./room.js";
import * as tournaments from "./tournaments.js";
import * as tutor from "./tutor.js";
import * as puzzles from "./puzzles.js";
import * as profile from "./profile.js";
import * as sounds from "./sounds.js";
import {
  LANGUAGE_NAMES, preferredLanguage, saveLanguage, savedLanguage, setLanguage, t,
  translateDocument, language, has, shownParams,
} from "./i18n.js";
import { $, appendTo } from "./ui.js";
import { learnVariants } from "./variants.js";
import { send, session } from "./session.js";
import { DEFAULT_PACE, SilenceCount, retryWait } from "./connection.js";
import * as opponentConnection from "./opponent_connection.js";

// The session token: this tab's way back to its session after a reload or a lost network,
// for as long as the server holds the session.
const TOKEN_KEY = "fibs-session-token";
// A heartbeat is an empty binary message, which the server answers below the lobby; with
// nothing at all heard through a number of them the connection is given up: a network that
// went silent closes no socket for minutes. How often, how many, and the waits before trying
// again after a loss: the hello's pace (connection.js).
const EMPTY = new ArrayBuffer(0);
const NORMAL_CLOSURE = 1000; // the server closed on purpose (bye, kicked, shut down)
const LOGIN_PROMPTS = new Set(["login: ", "\r\nlogin: "]);

const dialogue = {
  intent: null, // what the welcome forms asked for: {kind: "login" | "register" | "visitor", ...}
  pace: DEFAULT_PACE, // the last hello's
  reconnects: 0, // attempts since the connection was lost
  lostInRoom: false, // the connection was lost while logged in: the room stays until resumed
  heard: false, // a message came since the heartbeat's watch last looked
  watch: null,
  retry: null, // {timer, tick}: the next attempt and the banner's countdown
};

const savedToken = () => sessionStorage.getItem(TOKEN_KEY);
const forgetToken = () => sessionStorage.removeItem(TOKEN_KEY);

// --- the connection ------------------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws?events=1`);
  session.socket = socket;
  session.dialogue = "connecting";
  watch(socket); // a connection that never opens is given up too
  socket.addEventListener("message", (event) => {
    if (session.socket !== socket) return; // a connection given up
    dialogue.heard = true;
    if (typeof event.data === "string") receive(event.data); // else a heartbeat's answer
  });
  socket.addEventListener("close", (event) => {
    if (session.socket === socket) lost(event.code);
  });
}

// Heartbeats while the connection is open, and the silence that gives it up (from its start:
// a connection that never opens, in a network that drops what it is sent, is given up too).
function watch(socket) {
  clearInterval(dialogue.watch);
  dialogue.heard = false;
  const silence = new SilenceCount(dialogue.pace.silent_heartbeats);
  dialogue.watch = setInterval(() => {
    if (session.socket !== socket) { clearInterval(dialogue.watch); return; }
    const givenUp = silence.beat(dialogue.heard);
    dialogue.heard = false;
    if (givenUp) {
      socket.close(); // its close event, if it ever comes, is this socket's no more
      lost(null);
    } else if (socket.readyState === WebSocket.OPEN) {
      socket.send(EMPTY);
    }
  }, dialogue.pace.heartbeat_seconds * 1000);
}

// The server's pace for the connection, from its hello: the heartbeats from now on.
function learnPace(pace) {
  dialogue.pace = pace;
  watch(session.socket);
}

// The connection is gone (`code`: its close code; null: given up for silence).
function lost(code) {
  clearInterval(dialogue.watch);
  session.socket = null;
  const inRoom = session.dialogue === "online" || dialogue.lostInRoom;
  if (code === NORMAL_CLOSURE) forgetToken();
  if (inRoom && savedToken()) {
    // Not closed by the server: it holds the session a while. The room and the board stay
    // until a connection resumes it.
    dialogue.lostInRoom = true;
    session.dialogue = "reconnecting";
    retryLater();
    return;
  }
  dialogue.lostInRoom = false;
  hideBanner();
  session.dialogue = "closed";
  showWelcome(inRoom ? t("welcome.logged_out") : null);
  // A fresh login prompt for the forms, on the same schedule (a server that is down is not
  // asked again and again).
  setTimeout(connect, nextWait());
}

function nextWait() {
  const wait = retryWait(dialogue.reconnects, dialogue.pace, Math.random());
  dialogue.reconnects += 1;
  return wait;
}

// Over the board until a connection resumes the session: the seconds to the next try, then
// that it is under way.
function retryLater() {
  const wait = nextWait();
  clearRetry();
  const at = performance.now() + wait;
  const tick = () => {
    const seconds = Math.max(0, Math.ceil((at - performance.now()) / 1000));
    $("connection-banner").textContent = t("connection.lost", { seconds });
  };
  tick();
  $("connection-overlay").hidden = false;
  status("status.reconnecting");
  dialogue.retry = {
    timer: setTimeout(() => {
      clearRetry();
      $("connection-banner").textContent = t("status.reconnecting");
      connect();
    }, wait),
    tick: setInterval(tick, 250),
  };
}

function clearRetry() {
  if (!dialogue.retry) return;
  clearTimeout(dialogue.retry.timer);
  clearInterval(dialogue.retry.tick);
  dialogue.retry = null;
}

function hideBanner() {
  clearRetry();
  $("connection-overlay").hidden = true;
}

function receive(text) {
  const { lines, prompt } = splitMessage(text);
  for (const line of lines) {
    if (line.startsWith("{")) handleMessage(JSON.parse(line));
    else handleLine(line);
  }
  if (prompt !== null) handlePrompt(prompt);
}

function handleLine(line) {
  const name = welcomeName(line);
  if (name !== null) { enterRoom(name); return; }
  // The server's lines, as a telnet user reads them; board: lines are drawn instead.
  if (session.dialogue === "online" && !line.startsWith("board:") && !/^\d+( |$)/.test(line)) {
    appendTo($("server-log"), line);
  }
}

// Each message type to every module that reads it (the room and the game both read a
// match's start).
const HANDLERS = new Map();
for (const handlers of [{
  session: sessionToken,
  logged_in: (message) => { session.visitor = message.visitor; room.loggedIn(message); },
  hello: (message) => { // before the room's and tournaments' hello
    learnVariants(message.variants);
    learnPace(message.connection);
  },
  refusal,
}, game.HANDLERS, matchEnd.HANDLERS, room.HANDLERS, tournaments.HANDLERS, tutor.HANDLERS,
  puzzles.HANDLERS, opponentConnection.HANDLERS]) {
  for (const [type, handler] of Object.entries(handlers)) {
    HANDLERS.set(type, [...(HANDLERS.get(type) ?? []), handler]);
  }
}

function handleMessage(message) {
  for (const handler of HANDLERS.get(message.type) ?? []) handler(message);
}

function sessionToken(message) {
  if (message.token) {
    sessionStorage.setItem(TOKEN_KEY, message.token);
    return;
  }
  forgetToken(); // refused: the session is over (the login prompt follows)
  if (session.dialogue === "resuming") {
    session.dialogue = "connecting";
    dialogue.lostInRoom = false;
    hideBanner();
    showWelcome(t("welcome.logged_out"));
  }
}

// A refusal: before the login it is the welcome forms' message; after it, the game's.
function refusalText(message) {
  const key = message.code ? `refusal.${message.code}` : null;
  return key && has(key) ? t(key, shownParams(message.params)) : message.text;
}

function refusal(message) {
  if (session.dialogue === "online") {
    game.refused(refusalText(message));
    return;
  }
  if (dialogue.intent && !dialogue.intent.failed) {
    welcomeMessage(refusalText(message));
    dialogue.intent.failed = true;
  }
}

// --- logging in, registering, visiting ------------------------------------------------------

function handlePrompt(prompt) {
  const intent = dialogue.intent;
  if (LOGIN_PROMPTS.has(prompt) && session.dialogue === "connecting" && savedToken()) {
    session.dialogue = "resuming"; // a reload, or a new connection after a lost one
    status("status.reconnecting");
    send(`resume ${savedToken()}`);
  } else if (LOGIN_PROMPTS.has(prompt)) {
    const failedLogin = session.dialogue === "login" && intent?.kind === "login";
    session.dialogue = "login";
    dialogue.reconnects = 0; // the server answers: a connection lost from here starts afresh
    setFormsEnabled(true);
    if (failedLogin) welcomeMessage(t("welcome.login_failed"));
    dialogue.intent = null;
  } else if (prompt === "> " && session.dialogue === "guest" && intent?.kind === "register") {
    // The guest prompt: first for the name; again after a refusal (shown): then leave, and
    // the connection that follows offers the login prompt to every form again.
    if (intent.failed) {
      dialogue.intent = null;
      send("bye");
    } else {
      send(`name ${intent.name}`);
    }
  } else if (prompt.startsWith("Please give your password") && intent) {
    // Asked again: the server refused the password (its refusal is shown). It is never sent
    // twice: an empty password goes back to the guest prompt.
    if (intent.passwordSent && !intent.failed) {
      welcomeMessage(t("welcome.password_refused"));
      intent.failed = true;
    }
    send(intent.failed ? "" : intent.password);
    intent.passwordSent = true;
  } else if (prompt.startsWith("Please retype your password") && intent) {
    send(intent.password);
  }
}

function status(key, params) {
  $("status").textContent = t(key, params);
}

function setFormsEnabled(enabled) {
  for (const form of ["visitor-form", "login-form", "register-form"]) {
    $(form).querySelector("button").disabled = !enabled;
  }
  status(enabled ? "status.not_logged_in" : "status.connecting");
}

function welcomeMessage(text) {
  $("welcome-message").textContent = text;
}

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("login-name").value.trim();
  const password = $("login-password").value;
  if (session.dialogue !== "login" || /\s/.test(name) || /\s/.test(password)) {
    welcomeMessage(t("welcome.no_spaces"));
    return;
  }
  welcomeMessage("");
  dialogue.intent = { kind: "login", name };
  send(`login web 1008 ${name} ${password}`);
});

$("register-form").addEventListener("submit", (event) => {
  event.preventDefault();
  welcomeMessage("");
  dialogue.intent = { kind: "register", name: $("register-name").value.trim(),
    password: $("register-password").value };
  if (session.dialogue === "guest") send(`name ${dialogue.intent.name}`);
  else if (session.dialogue === "login") { session.dialogue = "guest"; send("guest"); }
});

$("visitor-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (session.dialogue !== "login" && session.dialogue !== "guest") return;
  welcomeMessage("");
  dialogue.intent = { kind: "visitor" };
  send(`bot ${$("visitor-level").value} ${$("visitor-length").value}`);
});

$("logout").addEventListener("click", () => { forgetToken(); send("bye"); });

function showWelcome(message) {
  $("room").hidden = true;
  $("review").hidden = true;
  $("welcome").hidden = false;
  $("logout").hidden = true;
  setFormsEnabled(false);
  session.me = null;
  dialogue.intent = null;
  room.reset();
  tournaments.reset();
  game.reset();
  opponentConnection.reset();
  if (message) welcomeMessage(message);
}

function enterRoom(name) {
  session.dialogue = "online";
  dialogue.reconnects = 0;
  dialogue.lostInRoom = false;
  hideBanner();
  session.me = name;
  $("welcome").hidden = true;
  $("room").hidden = false;
  $("logout").hidden = false;
  status("status.logged_in", { name });
  $("history-name").value = name;
  send("set boardstyle 3"); // the console shows board: lines as one line each, not drawn
  // A visitor's bot match began with their first command, before the page read its board.
  if (dialogue.intent?.kind === "visitor") send("board");
  dialogue.intent = null;
  room.entered();
}

// --- the page's own settings: language, sound, tabs --------------------------------------

async function chooseLanguage(chosen) {
  await setLanguage(chosen);
  translateDocument(document);
  game.render();
  room.render();
  tournaments.render();
  opponentConnection.render();
  if (session.me) status("status.logged_in", { name: session.me });
  else status(session.dialogue === "login" ? "status.not_logged_in" : "status.connecting");
}

for (const [code, label] of Object.entries(LANGUAGE_NAMES)) {
  const option = document.createElement("option");
  option.value = code;
  option.textContent = label;
  $("language").append(option);
}
// The page's words before anything is shown or said: its language's catalogues only.
await setLanguage(preferredLanguage(navigator.languages, savedLanguage(localStorage)));
$("language").value = language();
$("language").addEventListener("change", () => {
  saveLanguage(localStorage, $("language").value);
  chooseLanguage($("language").value);
});

$("mute").checked = sounds.isMuted();
$("mute").addEventListener("change", () => sounds.setMuted($("mute").checked));

function showTab(name) {
  for (const tab of document.querySelectorAll("#tabs [data-tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  }
  for (const panel of document.querySelectorAll(".tab-panel")) panel.hidden = panel.dataset.panel !== name;
  if (name === "tournaments" && session.dialogue === "online") tournaments.opened();
  if (name === "chat") room.chatSeen();
}
for (const tab of document.querySelectorAll("#tabs [data-tab]")) {
  tab.addEventListener("click", () => showTab(tab.dataset.tab));
}
showTab("play");

await chooseLanguage(language());
profile.init();
connect();
