// Small DOM helpers the page's modules share. Whatever people typed reaches the page only as
// text nodes (textContent) or escaped SVG text.
import { t } from "./i18n.js";
import { shownVariant, variants } from "./variants.js";

export const $ = (id) => document.getElementById(id);
const LOG_LINES = 300;

export function button(label, onClick, className = "") {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  if (className) element.className = className;
  element.addEventListener("click", onClick);
  return element;
}

export function item(text, ...children) {
  const element = document.createElement("li");
  element.append(text, ...children);
  return element;
}

export function appendTo(box, line, className = "") {
  const entry = document.createElement("div");
  entry.textContent = line;
  if (className) entry.className = className;
  box.append(entry);
  while (box.childElementCount > LOG_LINES) box.firstElementChild.remove();
  box.scrollTop = box.scrollHeight;
  return entry;
}

// A question with Yes and No before an action that cannot be undone; `always` skips it.
export function confirmAction(question, always = false) {
  if (always) return Promise.resolve(true);
  const dialog = $("confirm");
  $("confirm-text").textContent = question;
  dialog.returnValue = "";
  dialog.showModal();
  $("confirm-yes").focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
  });
}

// A select of the variants the server plays, each by the word that chooses it after a match's
// length ("" for the default), keeping the choice made when it is filled again (a new
// connection's hello).
export function offerVariants(select) {
  const chosen = select.value;
  select.replaceChildren(...variants().map((variant) => {
    const option = document.createElement("option");
    option.value = variant.word ?? "";
    option.dataset.i18n = `variant.${variant.name}`;
    option.textContent = t(option.dataset.i18n);
    return option;
  }));
  if ([...select.options].some((option) => option.value === chosen)) select.value = chosen;
}

// The bots go by the server's names for them, bot_<level> (docs/BOTS.md).
export const isBot = (name) => name.startsWith("bot_");

// The words of `invite` and `table` after the name (help invite): the length (null:
// unlimited), then the rules words of `terms` (a match's, or the form's; `variant` a name or a
// word, none for the default); a clock only with a length.
export function inviteWords(length, terms) {
  const words = [length === null ? "unlimited" : String(length)];
  if (terms) {
    if (terms.variant && terms.variant !== "standard") words.push(terms.variant);
    if (terms.lower_die_starts) words.push("lowstart");
    if (terms.cube === false) words.push("nocube");
    if (terms.rated === false) words.push("unrated");
    if (terms.turn_seconds && length !== null) words.push("timer", String(terms.turn_seconds));
    if (terms.bank && length !== null) {
      words.push("bank", String(terms.bank.move_seconds), String(terms.bank.reserve_per_point));
      if (terms.bank.mode !== "delay") words.push(terms.bank.mode);
    }
  }
  return words.join(" ");
}

// "5 points", "unlimited", with the terms of a typed invitation or match.
export function matchWords(length, terms) {
  const words = [length === null ? t("match.unlimited") : t("match.points", { length })];
  if (terms) {
    if (terms.variant) words.push(...shownVariant(terms.variant));
    if (terms.cube === false) words.push(t("terms.no_cube"));
    if (terms.lower_die_starts) words.push(t("terms.lowstart"));
    if (terms.turn_seconds) words.push(t("terms.turn_seconds", { seconds: terms.turn_seconds }));
    if (terms.bank) words.push(t(`terms.bank_${terms.bank.mode}`, { move: terms.bank.move_seconds, reserve: terms.bank.reserve_per_point }));
    if (terms.rated === false) words.push(t("terms.unrated_match"));
  }
  return words.join(", ");
}

// The words board_view.js asks for (its keys and values), from the catalogues.
const WHOSE = { mine: "mine", theirs: "theirs" };
export function boardLabels(key, values = {}) {
  const counted = (base, whose) => t(values.count === 0 ? `board.${base}_empty`
    : `board.${base}_${WHOSE[whose] ?? "mine"}`, values);
  switch (key) {
    case "point": return values.whose ? counted("point", values.whose) : t("board.point_empty", values);
    case "bar": return counted("bar", "mine");
    case "opponentBar": return counted("bar", "theirs");
    case "off": return counted("off", "mine");
    case "opponentOff": return counted("off", "theirs");
    case "die": return t(values.used ? "board.die_used" : "board.die", values);
    case "cube": return t(`board.cube_${values.owner ?? "centred"}`, values);
    default: return t(`board.${key}`, values);
  }
}
