// The countdown of a timed match that a player left or dropped (the comeback_countdown
// message, docs/WEB-PROTOCOL.md): who must come back by when, the seconds left counted on the
// page from the server's figure; or that the match waits for both, with no countdown. A
// resume (match_started) or a new board of a running match ends it.
import { t } from "./i18n.js";
import { $ } from "./ui.js";
import { session } from "./session.js";

const banner = { endsAt: null, tick: null, message: null };

// The banner's sentence: `message` a comeback_countdown, `seconds` left (null: none runs).
export function absenceText(message, seconds, me, translate) {
  if (seconds === null) return translate("absence.waits", { name: message.name === me ? message.opponent : message.name });
  if (message.name === me) return translate("absence.your_countdown", { seconds });
  return translate("absence.countdown", { name: message.name, seconds });
}

function render() {
  const element = $("absence-banner");
  if (!banner.message) {
    element.hidden = true;
    return;
  }
  const seconds = banner.endsAt === null ? null
    : Math.max(0, Math.ceil((banner.endsAt - performance.now()) / 1000));
  element.textContent = absenceText(banner.message, seconds, session.me, t);
  element.hidden = false;
}

export function showCountdown(message) {
  clearInterval(banner.tick);
  banner.message = message;
  banner.endsAt = message.seconds === null ? null : performance.now() + message.seconds * 1000;
  if (banner.endsAt !== null) banner.tick = setInterval(render, 1000);
  render();
}

export function endCountdown() {
  clearInterval(banner.tick);
  banner.message = null;
  render();
}
