// The page's message catalogues (fibs_server/web/static/i18n.js, messages_*.js): every text
// the page shows has a key in both languages, with the same placeholders.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { catalogueOf, preferredLanguage, setLanguage, shownParams, t } from "../../../fibs_server/web/static/i18n.js";
import { LABEL_KEYS } from "../../../fibs_server/web/static/board_view.js";
import { ACTION_KEYS, SKILLS, SUMMARY_FIELDS } from "../../../fibs_server/web/static/review.js";
import { boardLabels } from "../../../fibs_server/web/static/ui.js";
import { RESULT_OUTCOMES } from "../../../fibs_server/web/static/tournament_view.js";

const STATIC = new URL("../../../fibs_server/web/static/", import.meta.url);
const read = (name) => readFileSync(new URL(name, STATIC), "utf8");
const schema = JSON.parse(read("events.schema.json"));
const [en, es] = await Promise.all([catalogueOf("en"), catalogueOf("es")]);
await setLanguage("en");
const FAMILIES = new Set(Object.keys(en).filter((key) => key.includes(".")).map((key) => key.split(".")[0]));

// Every key the markup names, and every quoted key-like literal of the page's modules (a
// ternary's two keys included): "family.rest" with a family the catalogues have.
function usedKeys() {
  const keys = new Set();
  for (const found of read("index.html").matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g)) keys.add(found[1]);
  for (const file of readdirSync(STATIC).filter((name) => name.endsWith(".js"))) {
    for (const found of read(file).matchAll(/["`]([a-z_]+\.[a-z_.0-9]+)["`]/g)) {
      if (FAMILIES.has(found[1].split(".")[0]) && !found[1].endsWith(".js")) keys.add(found[1]);
    }
  }
  return keys;
}

// Keys the page makes at run time from the messages' own values (`decision.${phase}` and the
// like) and from its modules' lists. (`variant.<name>` of each variant the server plays:
// tests/web/test_variants_on_the_page.py.)
function composedKeys() {
  const enumOf = (name) => schema.$defs[name].enum;
  const chatKinds = schema.$defs.chat.properties.kind.enum;
  return [
    ...enumOf("phase").filter((phase) => !["not_started", "match_over"].includes(phase))
      .map((phase) => `decision.${phase}`),
    ...enumOf("size").map((size) => `resign.${size}`),
    ...chatKinds.flatMap((kind) => [`chat.${kind}_line`, `chat.own_${kind}`]),
    ...["beginner", "intermediate", "expert"].map((level) => `bot.${level}`),
    // game.js: an answer to a double or a resignation, by either side.
    ...["take", "drop", "accept_resignation", "reject_resignation"].flatMap((what) =>
      ["player", "opponent"].map((who) => `game.${what}_${who}`)),
    ...SKILLS.map((skill) => `review.skill.${skill.replace(" ", "_")}`),
    ...ACTION_KEYS,
    // tournaments.js: a tournament's status, and a Swiss table's result of a round.
    ...schema.$defs.tournament_entry.properties.status.enum.map((status) => `tournament.status_${status}`),
    ...RESULT_OUTCOMES.map((outcome) => `tournament.result_${outcome}`),
    ...SUMMARY_FIELDS.map((field) => `review.summary.${field}`),
  ];
}

test("both languages have the same keys", () => {
  assert.deepEqual(Object.keys(es).sort(), Object.keys(en).sort());
});

test("every key the page uses is in the catalogues", () => {
  const missing = [...usedKeys(), ...composedKeys()].filter((key) => !(key in en));
  assert.deepEqual(missing, []);
});

test("every word of the board has its key, whatever the checkers, dice and cube", () => {
  const cases = [{ count: 0 }, { count: 2, whose: "mine" }, { count: 2, whose: "theirs" },
    { used: true }, { used: false }, { owner: "player" }, { owner: "opponent" }, { owner: null }];
  const missing = LABEL_KEYS.flatMap((key) => cases.map((values) =>
    boardLabels(key, { point: 8, value: 2, pips: 167, score: 0, length: 5, ...values })))
    .filter((text) => text.startsWith("board."));
  assert.deepEqual(missing, []);
});

test("a translation has the same placeholders as the English", () => {
  const placeholders = (text) => [...new Set(text.match(/\{\w+\}/g) ?? [])].sort();
  const differing = Object.keys(en).filter((key) => placeholders(en[key]).join() !== placeholders(es[key]).join());
  assert.deepEqual(differing, []);
});

test("the browser's languages choose, a saved choice first, English otherwise", () => {
  assert.equal(preferredLanguage(["es-AR", "en"], null), "es");
  assert.equal(preferredLanguage(["de-DE", "fr"], null), "en");
  assert.equal(preferredLanguage(["es"], "en"), "en");
  assert.equal(preferredLanguage(undefined, "xx"), "en");
});

test("placeholders are filled; an unknown key shows itself", async () => {
  await setLanguage("es");
  assert.equal(t("who.playing", { name: "bob" }), "jugando con bob");
  assert.equal(t("no.such_key"), "no.such_key");
  await setLanguage("en");
  assert.equal(t("status.logged_in", { name: "<b>" }), "Logged in as <b>");
});

test("a ban's end is shown as a date in the page's language", async () => {
  const until = Date.UTC(2027, 0, 15, 12, 0) / 1000;
  await setLanguage("es");
  const spanish = t("refusal.banned_until", shownParams({ until }));
  assert.match(spanish, /^Tienes prohibida la entrada a este servidor hasta el .*2027/);
  await setLanguage("en");
  assert.match(t("refusal.banned_until", shownParams({ until })), /until Jan 15, 2027/);
  assert.deepEqual(shownParams({ name: "bob" }), { name: "bob" });
});

// Words the Spanish catalogue shares with the English one and may: names (the game's and its
// variants', bots, tie-breaks, measures, programs, abbreviations, file formats) and words
// Spanish spells the same. What a player types is quoted, as the server reads it: never translated.
const NAMES = ["backgammon", "gammon", "nackgammon", "hypergammon", "portes", "bot", "bots",
  "crawford", "buchholz", "sb", "pr", "emg", "memg", "fibs", "telnet", "utc", "chat", "exp", "p",
  "s", "min", "r", "n", "bgsage", "gnubg", "xg", "ply", "mat", "json", "bronstein", "fischer"];
const SPANISH_TOO = ["a", "no", "has", "dice", "legal", "normal", "final", "error", "tutor", "arena"];

// The words of a catalogue's texts, lower case, less what is never translated: placeholders,
// what a player types (in quotes, or after "usage:"/"uso:") and time zones' names.
function wordsOf(catalogue) {
  const words = new Set();
  for (const text of Object.values(catalogue)) {
    const said = text.replace(/\{\w+\}/g, " ").replace(/'[^']*'/g, " ")
      .replace(/^(usage|uso): .*/, " ").replace(/\b[A-Z][a-z]+\/[A-Za-z_]+/g, " ");
    for (const word of said.match(/\p{L}+/gu) ?? []) words.add(word.toLowerCase());
  }
  return words;
}

test("the Spanish catalogues leave no English word but names", () => {
  const english = wordsOf(en);
  const allowed = new Set([...NAMES, ...SPANISH_TOO]);
  const left = [...wordsOf(es)]
    .filter((word) => english.has(word) && !allowed.has(word));
  assert.deepEqual(left, []);
});
