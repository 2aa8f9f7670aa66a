// The tutor on the page (docs/WEB-PROTOCOL.md, "The tutor"): a switch and a threshold under
// the board. Switched on, every unrated match's plays and cube decisions are judged by the
// server before they are made; one that loses more than the threshold comes back as a
// `tutor_warning`, shown with the better decision: Play it anyway (`tutor play`) or Change it
// (the play is assembled again). Rated matches never have it: the server refuses it there,
// and the switch is off and says so. The choice is kept in localStorage for the next match.
import { t } from "./i18n.js";
import { $, button } from "./ui.js";
import { send } from "./session.js";
import { refused } from "./game.js";
import { BAR, OFF } from "./play.js";

const TUTOR_KEY = "fibs-tutor";
export const THRESHOLDS = [0.02, 0.04, 0.08, 0.16];
const DEFAULT_THRESHOLD = 0.08;

const state = { rated: null, on: false, playing: false };

// A decision as the warning names it: a play as "8/5 6/5" in the player's numbering.
export function choiceWords(choice) {
  if (choice.kind !== "move") return t(`tutor.kind.${choice.kind}`);
  const word = (point) => (point === BAR ? t("tutor.bar") : point === OFF ? t("tutor.off")
    : String(point));
  return choice.steps.map(([from, to]) => `${word(from)}/${word(to)}`).join(" ");
}

// The saved choice: {on, threshold}.
export function savedChoice(storage) {
  try {
    const saved = JSON.parse(storage.getItem(TUTOR_KEY) ?? "null");
    if (saved && THRESHOLDS.includes(saved.threshold)) return { on: !!saved.on, threshold: saved.threshold };
  } catch { /* a value of another version: the default */ }
  return { on: false, threshold: DEFAULT_THRESHOLD };
}

function panel() {
  let box = $("tutor");
  if (box) return box;
  box = document.createElement("div");
  box.id = "tutor";
  box.className = "tutor";
  box.hidden = true;
  const label = document.createElement("label");
  const toggle = document.createElement("input");
  toggle.type = "checkbox";
  toggle.id = "tutor-on";
  const name = document.createElement("span");
  name.dataset.i18n = "tutor.label"; // translateDocument renames them with the language
  name.textContent = t("tutor.label");
  label.append(toggle, " ", name);
  const threshold = document.createElement("select");
  threshold.id = "tutor-threshold";
  threshold.dataset.i18nAriaLabel = "tutor.threshold";
  threshold.setAttribute("aria-label", t("tutor.threshold"));
  for (const value of THRESHOLDS) {
    const option = document.createElement("option");
    option.value = String(value);
    option.textContent = t("tutor.threshold_option", { value: value.toFixed(2) });
    threshold.append(option);
  }
  const note = document.createElement("span");
  note.id = "tutor-note";
  note.className = "hint";
  const warning = document.createElement("div");
  warning.id = "tutor-warning";
  warning.className = "tutor-warning";
  warning.setAttribute("role", "alert");
  warning.hidden = true;
  const text = document.createElement("p");
  text.id = "tutor-warning-text";
  const playAnyway = button(t("tutor.play_anyway"), () => { hideWarning(); send("tutor play"); },
    "tutor-play");
  const change = button(t("tutor.change"), hideWarning, "tutor-change");
  playAnyway.dataset.i18n = "tutor.play_anyway";
  change.dataset.i18n = "tutor.change";
  warning.append(text, playAnyway, change);
  box.append(label, " ", threshold, " ", note, warning);
  $("game-status").after(box);
  const choice = savedChoice(localStorage);
  toggle.checked = choice.on;
  threshold.value = String(choice.threshold);
  toggle.addEventListener("change", changed);
  threshold.addEventListener("change", changed);
  return box;
}

function chosen() {
  return { on: $("tutor-on").checked, threshold: Number($("tutor-threshold").value) };
}

function changed() {
  const choice = chosen();
  localStorage.setItem(TUTOR_KEY, JSON.stringify(choice));
  if (state.playing && state.rated === false) tell(choice);
}

function tell(choice) {
  send(choice.on ? `tutor on ${choice.threshold}` : "tutor off");
}

function hideWarning() {
  $("tutor-warning").hidden = true;
}

function render() {
  const box = panel();
  box.hidden = !state.playing;
  const rated = state.rated === true;
  $("tutor-on").disabled = rated;
  $("tutor-threshold").disabled = rated || !$("tutor-on").checked;
  $("tutor-note").textContent = rated ? t("tutor.rated") : state.on ? t("tutor.is_on") : "";
}

export const HANDLERS = {
  match_started: (message) => {
    state.playing = true;
    state.rated = message.rated;
    state.on = false;
    render();
    hideWarning();
    // The server keeps no choice of the page's: an unrated match is told it at its start.
    if (!message.rated && chosen().on) tell(chosen());
  },
  watching: () => { state.playing = false; render(); },
  match_over: () => { state.playing = false; hideWarning(); render(); },
  tutor: (message) => { state.on = message.on; render(); },
  tutor_warning: (message) => {
    const words = t("tutor.warning", { proposed: choiceWords(message.proposed),
      best: choiceWords(message.best), loss: message.loss.toFixed(3) });
    refused(words); // the play is assembled again, the status line says why
    $("tutor-warning-text").textContent = words;
    $("tutor-warning").hidden = false;
  },
  board: () => { if ($("tutor-warning")) hideWarning(); }, // the match moved on
};
