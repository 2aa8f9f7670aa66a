// The dice of a match, recomputed in the browser from its revealed seed and the players'
// salts, as docs/FAIRNESS.md states them: pair n is read from HMAC-SHA256(seed, n as 8 bytes
// + block as 4 bytes [+ the salts entered by then, each after its length]), bytes under 252,
// each byte b a die b % 6 + 1.

const UNBIASED_BYTES = 252;
const SALT_BYTES = 16;
// The commitments this browser was shown at its matches' starts, newest last: a finished
// match's record is then checked against the one seen, not only against its own.
const COMMITMENTS_KEY = "fibs-dice-commitments";
const COMMITMENTS_KEPT = 200;

const hex = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
const fromHex = (text) => Uint8Array.from({ length: text.length / 2 },
  (_, index) => parseInt(text.slice(2 * index, 2 * index + 2), 16));

// A salt for the `salt` command: random, from the browser's secure random numbers.
export function randomSalt() {
  return hex(crypto.getRandomValues(new Uint8Array(SALT_BYTES)));
}

export function rememberCommitment(commitment) {
  const seen = seenCommitments().filter((kept) => kept !== commitment);
  localStorage.setItem(COMMITMENTS_KEY,
    JSON.stringify([...seen, commitment].slice(-COMMITMENTS_KEPT)));
}

export function seenCommitments() {
  try {
    return JSON.parse(localStorage.getItem(COMMITMENTS_KEY) ?? "[]");
  } catch {
    return [];
  }
}

// The message's tail for pair `number`: nothing until a salt has entered, then each player's
// salt (empty if not entered yet) after its length as one byte.
function saltSuffix(salts, number) {
  const entered = salts.map((salt) => (salt && salt.from_pair <= number
    ? new TextEncoder().encode(salt.text) : new Uint8Array(0)));
  if (entered.every((text) => text.length === 0)) return new Uint8Array(0);
  return new Uint8Array(entered.flatMap((text) => [text.length, ...text]));
}

async function pair(key, number, salts) {
  const dice = [];
  const suffix = saltSuffix(salts, number);
  for (let block = 0; ; block += 1) {
    const message = new Uint8Array(12 + suffix.length);
    const view = new DataView(message.buffer);
    view.setBigUint64(0, BigInt(number));
    view.setUint32(8, block);
    message.set(suffix, 12);
    const digest = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
    for (const byte of digest) {
      if (byte < UNBIASED_BYTES) dice.push((byte % 6) + 1);
      if (dice.length === 2) return dice;
    }
  }
}

// `dice`: the JSON API's `dice` of a finished match ({seed, commitment, salts, rolls}).
// Answers {ok: true, count} or {ok: false, wrong: "commitment"} / {ok: false, wrong: index,
// roll, expected} for the first roll that is not the seed's and salts'.
export async function verifyDice(dice) {
  const seed = fromHex(dice.seed);
  const commitment = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", seed)));
  if (commitment !== dice.commitment) return { ok: false, wrong: "commitment" };
  const key = await crypto.subtle.importKey(
    "raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  for (const [index, roll] of dice.rolls.entries()) {
    const expected = await pair(key, index, dice.salts);
    if (expected[0] !== roll[0] || expected[1] !== roll[1]) {
      return { ok: false, wrong: index, roll, expected };
    }
  }
  return { ok: true, count: dice.rolls.length };
}

// What a player reads of a match's dice: every roll recomputed here from its seed and salts,
// and whether its commitment is one this browser was shown; `translate` the page's t.
export async function diceVerdict(dice, translate) {
  if (!dice) return translate("dice.not_verifiable");
  const verdict = await verifyDice(dice);
  if (verdict.ok) {
    const seen = seenCommitments().includes(dice.commitment)
      ? ` ${translate("dice.commitment_seen")}` : "";
    return translate("dice.verified", { count: verdict.count }) + seen;
  }
  if (verdict.wrong === "commitment") return translate("dice.wrong_commitment");
  return translate("dice.wrong_roll", { n: verdict.wrong + 1, roll: verdict.roll.join(""),
    expected: verdict.expected.join("") });
}
