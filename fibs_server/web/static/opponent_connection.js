// Whose page lost its connection in the match this page plays or watches (the server's
// player_connection messages, docs/WEB-PROTOCOL.md), and whose node is out of reach in a match
// across nodes (player_reach): said above the board while the server holds their session for
// them to come back, or while the match waits for their node.
import { t } from "./i18n.js";
import { $ } from "./ui.js";

const dropped = new Set(); // names
const unreached = new Set(); // names

export const HANDLERS = {
  player_connection: (message) => {
    if (message.connected) dropped.delete(message.name);
    else dropped.add(message.name);
    render();
  },
  player_reach: (message) => {
    if (message.reachable) unreached.delete(message.name);
    else unreached.add(message.name);
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
  unreached.clear();
  render();
}

function said(key, names) {
  return [...names].map((name) => {
    const line = document.createElement("div");
    line.textContent = t(key, { name });
    return line;
  });
}

export function render() {
  const notice = $("opponent-connection");
  notice.replaceChildren(...said("connection.player_dropped", dropped),
    ...said("connection.player_out_of_reach", unreached));
  notice.hidden = dropped.size === 0 && unreached.size === 0;
}
