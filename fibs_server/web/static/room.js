// The room: who is online (from presence messages), invitations with their terms, saved
// matches to resume, open tables and their links, the bots, chat in tabs.
import * as sounds from "./sounds.js";
import { t } from "./i18n.js";
import { $, appendTo, button, inviteWords, item, matchWords, offerVariants } from "./ui.js";
import { send, session } from "./session.js";
import { showProfile } from "./profile.js";
import * as quickPlay from "./quick_play.js";

const BOT_LEVELS = ["beginner", "intermediate", "expert"];
const TABLE_PARAMETER = "table";

const room = {
  who: new Map(),
  invitationsIn: new Map(), // inviter → invitation message
  invitationsOut: new Map(), // invited → invitation_sent message
  saved: [],
  tables: [],
  myTable: null, // the table this user has open (my_table)
  chatFilter: "all",
  players: null, // the names of the match this user plays or watches, if any
  unread: 0, // chat lines said by others since the chat tab was last shown
  tableWanted: new URLSearchParams(location.search).get(TABLE_PARAMETER),
};
// The chat's filters, by the words they show: the game's is its players' kibitzes, the
// watchers' their whispers and kibitzes; and the way of speaking each filter chooses.
const CHAT_FILTERS = { say: "say", kibitz: "kibitz", watchers: "whisper", tell: "tell", shout: "shout" };

export const HANDLERS = {
  hello: () => offerVariants($("invite-variant")),
  presence: (message) => {
    if (message.online) room.who.set(message.name, message);
    else room.who.delete(message.name);
    if (message.name === session.me) $("ready").checked = message.ready;
    renderWho();
    if (room.saved.some((saved) => saved.opponent === message.name)) renderSaved();
  },
  invitation: (message) => {
    room.invitationsIn.set(message.from, message);
    sounds.play("invitation");
    renderInvitations();
  },
  invitation_sent: (message) => { room.invitationsOut.set(message.to, message); renderInvitations(); },
  invitation_withdrawn: (message) => { room.invitationsIn.delete(message.from); renderInvitations(); },
  match_started: (message) => {
    room.players = [session.me, message.opponent];
    room.invitationsIn.delete(message.opponent);
    room.invitationsOut.delete(message.opponent);
    room.myTable = null; // a table closes when its match starts
    renderInvitations();
    renderTables();
  },
  saved_matches: (message) => { room.saved = message.matches; renderSaved(); },
  tables: (message) => { room.tables = message.tables; renderTables(); },
  my_table: (message) => { room.myTable = message.table; renderTables(); },
  watching: (message) => { room.players = [message.player, message.opponent]; },
  watch_ended: () => { room.players = null; },
  match_over: () => { room.players = null; },
  chat,
  ...quickPlay.HANDLERS,
};

export function loggedIn() {
  renderBots();
  quickPlay.render();
}

// Just in the room: a table link (`/?table=CODE`) seats the user now, once.
export function entered() {
  renderBots();
  send("show tables");
  if (room.tableWanted) {
    send(`sit ${room.tableWanted}`);
    room.tableWanted = null;
    history.replaceState(null, "", location.pathname);
    renderTableNotice();
  }
}

// Before the login, a table link's page says where it leads (a visitor plays bots only).
function renderTableNotice() {
  $("table-notice").hidden = !room.tableWanted;
  $("table-notice").textContent = room.tableWanted ? t("welcome.table", { code: room.tableWanted }) : "";
}

export function reset() {
  room.who.clear();
  room.invitationsIn.clear();
  room.invitationsOut.clear();
  room.saved = [];
  room.tables = [];
  room.myTable = null;
  room.players = null;
  quickPlay.reset();
  $("chat-log").textContent = "";
  chatSeen();
  render();
}

export function render() {
  renderTableNotice();
  renderWho();
  renderInvitations();
  renderSaved();
  renderTables();
  renderBots();
  quickPlay.render();
  for (const entry of $("chat-log").children) entry.textContent = chatText(entry.said);
}

// --- the terms of a match: the same for invitations, tables and bots ----------------------

// The words of `invite` and `table` after the name for the form's terms (help invite).
export function termsWords() {
  const length = $("invite-unlimited").checked ? null
    : Math.min(99, Math.max(1, Math.round(Number($("invite-length").value)) || 1));
  return inviteWords(length, { variant: $("invite-variant").value,
    lower_die_starts: $("invite-lowstart").checked, cube: $("invite-cube").checked,
    rated: $("invite-rated").checked, ...clockTerms($("invite-timer").value) });
}

// The clock choice's value: "30" (a turn timer's seconds) or "bank 12 60 [mode]" (a time bank).
function clockTerms(value) {
  const [word, move, reserve, mode] = value.split(" ");
  if (word !== "bank") return { turn_seconds: value };
  return { bank: { move_seconds: Number(move), reserve_per_point: Number(reserve), mode: mode ?? "delay" } };
}

quickPlay.wire(termsWords);

$("invite-unlimited").addEventListener("change", () => {
  $("invite-length").disabled = $("invite-timer").disabled = $("invite-unlimited").checked;
});

// --- who is online -------------------------------------------------------------------------

function statusOf(user) {
  const doing = user.opponent ? t("who.playing", { name: user.opponent })
    : user.watching ? t("who.watching", { name: user.watching })
      : user.ready ? t("who.is_ready") : "";
  return user.away ? `${doing} ${t("who.away")}`.trim() : doing;
}

function renderWho() {
  const body = $("who").querySelector("tbody");
  body.textContent = "";
  const filter = $("who-filter").value.trim().toLowerCase();
  const readyOnly = $("who-ready-only").checked;
  const names = [...room.who.keys()].sort((a, b) => a.localeCompare(b));
  for (const name of names) {
    const user = room.who.get(name);
    if (filter && !name.toLowerCase().includes(filter)) continue;
    if (readyOnly && !user.ready && name !== session.me) continue;
    const row = body.insertRow();
    row.dataset.name = name;
    for (const value of [name, user.rating.toFixed(2), String(user.experience), statusOf(user)]) {
      row.insertCell().textContent = value;
    }
    const actions = row.insertCell();
    if (name === session.me) continue;
    actions.append(
      button(t("who.invite"), () => send(`invite ${name} ${termsWords()}`)),
      button(t("who.watch"), () => send(`watch ${name}`)),
      button(t("who.tell"), () => {
        $("chat-kind").value = "tell";
        $("chat-to").value = name;
        chatKindChanged();
        document.querySelector('#tabs [data-tab="chat"]').click();
        $("chat-text").focus();
      }),
      button(t("who.profile"), () => showProfile(name)));
  }
}
$("who-filter").addEventListener("input", renderWho);
$("who-ready-only").addEventListener("change", renderWho);
// The server answers `toggle ready` with the user's new presence, which sets the box.
$("ready").addEventListener("click", (event) => { event.preventDefault(); send("toggle ready"); });

// --- invitations and saved matches -------------------------------------------------------

function invitationWords(invitation) {
  if (invitation.resume) return t("invitations.resume");
  const words = matchWords(invitation.length, invitation.terms);
  return invitation.replaces_saved_match ? `${words} ${t("invitations.replaces_saved")}` : words;
}

function renderInvitations() {
  $("invitations-in").replaceChildren(...[...room.invitationsIn.values()].map((invitation) =>
    item(t("invitations.from", { name: invitation.from, match: invitationWords(invitation) }) + " ",
      button(t("invitations.join"), () => send(`join ${invitation.from}`)))));
  $("invitations-out").replaceChildren(...[...room.invitationsOut.values()].map((invitation) =>
    item(t("invitations.to", { name: invitation.to, match: invitationWords(invitation) }))));
  // The newest invitation also shows at the top of the room, with its Join.
  const newest = [...room.invitationsIn.values()].at(-1);
  $("notifications").replaceChildren(...(newest ? [Object.assign(document.createElement("p"), {
    className: "notification" })] : []));
  if (newest) {
    $("notifications").firstChild.append(t("invitations.from",
      { name: newest.from, match: invitationWords(newest) }) + " ",
    button(t("invitations.join"), () => send(`join ${newest.from}`)));
  }
}

// Whether an opponent is online comes from presence, which follows their logins and logouts;
// the list's own online flag is only what it was when the list came.
function renderSaved() {
  $("saved-matches").replaceChildren(...room.saved.map((saved) => {
    const words = t("saved.match", { name: saved.opponent, match: matchWords(saved.length, null),
      player: saved.score.player, opponent: saved.score.opponent });
    return room.who.has(saved.opponent)
      ? item(`${words} `, button(t("saved.resume"), () => send(`invite ${saved.opponent}`)))
      : item(`${words} ${t("saved.offline")}`);
  }));
}

// --- tables --------------------------------------------------------------------------------

function tableLink(code) {
  return `${location.origin}/?${TABLE_PARAMETER}=${encodeURIComponent(code)}`;
}

function renderTables() {
  const mine = room.myTable;
  $("close-table").hidden = !mine;
  $("my-table").replaceChildren();
  if (mine) {
    const link = document.createElement("a");
    link.href = tableLink(mine.code);
    link.textContent = tableLink(mine.code);
    $("my-table").append(t("tables.yours", { code: mine.code }), " ", link);
  }
  $("tables").replaceChildren(...room.tables.filter((table) => table.code !== mine?.code).map((table) =>
    item(t("tables.table", { name: table.host, match: matchWords(table.length, table.terms ?? null) }) + " ",
      button(t("tables.sit"), () => send(`sit ${table.code}`)))));
}

$("open-table").addEventListener("click", () => {
  send(`table ${termsWords()}${$("table-private").checked ? " private" : ""}`);
  send("show tables");
});
$("close-table").addEventListener("click", () => { send("table close"); send("show tables"); });
$("show-tables").addEventListener("click", () => send("show tables"));

// --- bots ------------------------------------------------------------------------------------

function renderBots() {
  $("bot-buttons").replaceChildren(...BOT_LEVELS.map((level) =>
    button(t("bots.play", { level: t(`bot.${level}`) }),
      () => send(`bot ${level} ${termsWords().split(" ")[0]}`))));
}

// --- chat ------------------------------------------------------------------------------------

function chatText(said) {
  const own = said.from === session.me;
  const key = own ? `chat.own_${said.kind}` : `chat.${said.kind}_line`;
  return t(key, { from: said.from, to: said.to ?? "", text: said.text });
}

// Whose words a line is, as the chat's filters sort them: a whisper, or a kibitz from
// someone who does not play the match, is the watchers'.
function chatChannel(said) {
  if (said.kind === "whisper") return "watchers";
  if (said.kind === "kibitz" && room.players && !room.players.includes(said.from)) return "watchers";
  return said.kind;
}

function chat(said) {
  const channel = chatChannel(said);
  const entry = appendTo($("chat-log"), chatText(said), `chat-${channel}`);
  entry.said = said;
  entry.dataset.kind = channel;
  entry.hidden = !shownInChat(channel);
  if (said.from !== session.me && $("chat-log").closest(".tab-panel").hidden) {
    room.unread += 1;
    markUnread();
  }
}

// The chat tab says how many lines came while it was not shown.
function markUnread() {
  const tab = document.querySelector('#tabs [data-tab="chat"]');
  if (room.unread) tab.dataset.unread = String(room.unread);
  else delete tab.dataset.unread;
}

export function chatSeen() {
  room.unread = 0;
  markUnread();
}

// The filters of the chat: the opponent's words (say), the game's players' (kibitz), the
// watchers' (whisper, and a watcher's kibitz), private (tell), everyone's (shout), or all.
function shownInChat(channel) {
  return room.chatFilter === "all" || room.chatFilter === channel;
}

for (const tab of document.querySelectorAll("[data-chat-filter]")) {
  tab.addEventListener("click", () => {
    room.chatFilter = tab.dataset.chatFilter;
    for (const other of document.querySelectorAll("[data-chat-filter]")) {
      other.setAttribute("aria-pressed", String(other === tab));
    }
    for (const entry of $("chat-log").children) entry.hidden = !shownInChat(entry.dataset.kind);
    if (room.chatFilter in CHAT_FILTERS) {
      $("chat-kind").value = CHAT_FILTERS[room.chatFilter];
      chatKindChanged();
    }
  });
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
