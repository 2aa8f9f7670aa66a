// How the page keeps its one connection (docs/WEB-PROTOCOL.md, "Heartbeats" and
// "Reconnecting"): the pace comes in the server's hello; until then, the server's defaults.
export const DEFAULT_PACE = Object.freeze({
  heartbeat_seconds: 2.5, silent_heartbeats: 3, retry_first_seconds: 0.5, retry_most_seconds: 10,
});

// Milliseconds to wait before try number `attempt` (0: the first after the loss): the first
// wait, doubling to the most, drawn between half and all of it (`random` in [0, 1)), so that
// the pages of a server that restarted do not all come back at once.
export function retryWait(attempt, pace, random) {
  const ceiling = Math.min(pace.retry_most_seconds, pace.retry_first_seconds * 2 ** attempt);
  return ceiling * (0.5 + random / 2) * 1000;
}

// The silence that gives a connection up, counted in heartbeats rather than read off the
// clock: a clock that jumps (a laptop waking up) is no silence. `beat(heard)` at each
// heartbeat, with whether anything came since the last: true once `silentBeats` in a row
// heard nothing.
export class SilenceCount {
  constructor(silentBeats) {
    this.silentBeats = silentBeats;
    this.silent = 0;
  }

  beat(heard) {
    this.silent = heard ? 0 : this.silent + 1;
    return this.silent >= this.silentBeats;
  }
}
