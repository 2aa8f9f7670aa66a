// Quick play: the match chosen in the room's terms form, a rating range, and the server pairs
// this player with whoever seeks the same match (`quickplay`, docs/WEB-PROTOCOL.md). While it
// seeks, the panel says so with Cancel, and with "Play a bot" once the server offers one; the
// match itself starts as every match does (match_started).
import { t } from "./i18n.js";
import { $, matchWords } from "./ui.js";
import { send, session } from "./session.js";

const quick = {
  seek: null, // the quick_play message's seek while this player seeks, else null
  opponent: null, // who the last seek was paired with
};

export const HANDLERS = {
  quick_play: (message) => {
    quick.seek = message.seek;
    quick.opponent = message.opponent;
    render();
  },
};

export function reset() {
  quick.seek = null;
  quick.opponent = null;
  render();
}

export function render() {
  const seek = quick.seek;
  $("quick-play").hidden = Boolean(session.visitor); // a visitor's matches are never stored
  $("quick-play-start").hidden = Boolean(seek);
  $("quick-play-range").disabled = Boolean(seek);
  $("quick-play-waiting").hidden = !seek;
  $("quick-play-bot").hidden = !seek?.bot_offered;
  $("quick-play-status").textContent = seek
    ? t(seek.rating_range === null ? "quick.seeking_anyone" : "quick.seeking",
      { match: matchWords(seek.length, seek.terms), range: seek.rating_range })
    : quick.opponent ? t("quick.paired", { name: quick.opponent }) : "";
}

// `termsWords`: the room's terms form as `invite` and `table` read it (length first).
export function wire(termsWords) {
  $("quick-play-start").addEventListener("click", () => {
    const range = $("quick-play-range").value;
    send(`quickplay ${termsWords()} range ${range}`);
  });
  $("quick-play-cancel").addEventListener("click", () => send("quickplay cancel"));
  $("quick-play-bot").addEventListener("click", () => {
    if (!quick.seek) return;
    send(`bot ${quick.seek.length}${quick.seek.terms.rated ? "" : " unrated"}`);
  });
}
