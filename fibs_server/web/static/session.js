// The page's one connection and who is logged in on it; the modules send through here.
export const session = {
  socket: null,
  dialogue: "connecting", // connecting, login, guest, resuming, reconnecting, online, closed
  me: null,
  visitor: false,
};

export function send(line) {
  if (session.socket && session.socket.readyState === WebSocket.OPEN) session.socket.send(line);
}
