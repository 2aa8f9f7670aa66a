// The server's dice statistics by month (/dice): the open record's months as /api/records
// gives them (docs/WEB-API.md), one row each.
import { fetchJson } from "./api.js";

const percent = (part, whole) => (whole ? `${((100 * part) / whole).toFixed(1)}%` : "–");

// A month's row: its figures as text, the verdict beside the chi-square.
export function monthCells(month) {
  const dice = month.dice;
  const enough = dice.enough_rolls;
  return [
    month.month,
    String(month.matches),
    String(dice.rolls),
    `${dice.doubles} (${percent(dice.doubles, dice.rolls)}, fair 16.7%)`,
    dice.rolls ? `${(dice.pips / dice.rolls).toFixed(2)} (fair ${dice.fair_pips_per_roll.toFixed(2)})` : "–",
    enough ? dice.chi_square.toFixed(1) : "too few rolls",
    enough ? `${dice.p_value.toFixed(3)}${dice.unusual ? " unusual" : ""}` : "–",
  ];
}

function row(month) {
  const line = document.createElement("tr");
  line.dataset.month = month.month;
  for (const text of monthCells(month)) {
    const cell = document.createElement("td");
    cell.textContent = text;
    line.append(cell);
  }
  const files = document.createElement("td");
  for (const name of month.files) {
    const link = document.createElement("a");
    link.href = `/records/${name}`;
    link.textContent = name.endsWith(".jsonl.gz") ? "JSON" : ".mat";
    files.append(link, " ");
  }
  line.append(files);
  return line;
}

async function show() {
  const status = document.getElementById("dice-status");
  try {
    const { months } = await fetchJson("/api/records");
    document.querySelector("#dice-months tbody").replaceChildren(...months.map(row));
    document.getElementById("dice-months").hidden = months.length === 0;
    status.textContent = months.length ? "" : "No month has been written yet.";
  } catch (error) {
    status.textContent = error.message;
  }
}

if (typeof document !== "undefined") show();
