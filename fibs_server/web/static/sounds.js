// Short tones made by the browser (no sound files to fetch): dice, a checker, your turn, an
// invitation, the clock's warning, the end of a match. Muted by the page's switch, kept per
// browser.
const MUTE_KEY = "fibs-muted";
const TONES = {
  dice: [[520, 0.05], [660, 0.05]],
  checker: [[330, 0.04]],
  turn: [[660, 0.08], [880, 0.1]],
  invitation: [[880, 0.1], [660, 0.1], [880, 0.12]],
  warning: [[990, 0.12], [990, 0.12]],
  match_over: [[523, 0.12], [659, 0.12], [784, 0.2]],
};

let context = null;
let muted = localStorage.getItem(MUTE_KEY) === "1";

export function isMuted() {
  return muted;
}

export function setMuted(value) {
  muted = value;
  localStorage.setItem(MUTE_KEY, value ? "1" : "0");
}

export function play(name) {
  if (muted || !(name in TONES) || typeof AudioContext === "undefined") return;
  context ??= new AudioContext();
  if (context.state === "suspended") context.resume(); // browsers start it after a click only
  let at = context.currentTime;
  for (const [frequency, seconds] of TONES[name]) {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.08, at);
    gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(at);
    oscillator.stop(at + seconds);
    at += seconds;
  }
}
