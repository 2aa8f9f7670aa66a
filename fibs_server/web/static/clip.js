// What the page reads of the server's lines themselves: how a WebSocket message splits into
// lines and a prompt, and CLIP's welcome line (docs/PROTOCOL.md), which says who logged in.
// Everything else comes as typed messages. Pure functions: the page and `node --test` use the
// same.

// One WebSocket message is one flush of the server's output: whole lines, each ending in
// CR LF, and perhaps a prompt at its end (`login: `, `Please give your password: `).
export function splitMessage(text) {
  const parts = text.split("\r\n");
  const prompt = parts.pop();
  return { lines: parts, prompt: prompt === "" ? null : prompt };
}

// CLIP 1 `1 <name> <last login> <last host>`: the name logged in, else null.
export function welcomeName(line) {
  const words = line.split(" ");
  return words.length === 4 && words[0] === "1" ? words[1] : null;
}
