// Whose page lost its connection in the match this page plays or watches (the server's
// player_connection messages, docs/WEB-PROTOCOL.md): said above the board while the server
// holds their session for them to come back.
import { t } from "./i18n.js";
import { $ } from "./ui.js";

const dropped = new Set(); // names

export const HANDLERS = {
  player_connection: (message) => {
    if (message.connected) dropped.delete(message.name);
    else dropped.add(message.name);
    render();
  },
  // Logged out: the hold is over, and the match's own messages say what follows.
  presence: (message) => { if (!message.online && dropped.delete(message.name)) render(); },
  // Another match, or none: nobody's connection in it is known to be down.
  match_started: () => reset(),
  watching: () => reset(),
  watch_ended: () => reset(),
  match_over: () => reset(),
};

export function reset() {
  dropped.clear();
  render();
}

export function render() {
  const notice = $("opponent-connection");
  notice.replaceChildren(...[...dropped].map((name) => {
    const line = document.createElement("div");
    line.textContent = t("connection.player_dropped", { name });
    return line;
  }));
  notice.hidden = dropped.size === 0;
}
