// Pictures of ratings, as SVG text: a player's rating by their rated matches (from
// /api/rating-history) and the ratings list (from /api/ratings). `t` gives the words (i18n.js).
import { escapeText } from "./board_view.js";

const WIDTH = 320;
const HEIGHT = 160;
const PAD = 34;

// `changes`: [{finished_at, before, after}], oldest first. The line starts at the first
// match's rating before it and has a point after each match.
export function ratingPlotSvg(name, changes, t) {
  const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" class="plot" role="img" aria-label="${escapeText(t("plot.rating_of", { name }))}">`;
  if (changes.length === 0) {
    return `${head}<text class="empty" x="${WIDTH / 2}" y="${HEIGHT / 2}">${escapeText(t("plot.no_rated_matches", { name }))}</text></svg>`;
  }
  const ratings = [changes[0].before, ...changes.map((c) => c.after)];
  const low = Math.floor(Math.min(...ratings) - 1);
  const high = Math.ceil(Math.max(...ratings) + 1);
  const x = (i) => PAD + (i * (WIDTH - PAD - 8)) / Math.max(1, ratings.length - 1);
  const y = (r) => HEIGHT - 20 - ((r - low) * (HEIGHT - 34)) / (high - low);
  const line = ratings.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" ");
  const last = ratings[ratings.length - 1];
  const lastDate = new Date(changes[changes.length - 1].finished_at * 1000).toISOString().slice(0, 10);
  return [head,
    `<line class="axis" x1="${PAD}" y1="${HEIGHT - 20}" x2="${WIDTH - 8}" y2="${HEIGHT - 20}"/>`,
    `<text class="tick" x="${PAD - 3}" y="${y(high) + 4}">${high}</text>`,
    `<text class="tick" x="${PAD - 3}" y="${y(low) + 4}">${low}</text>`,
    `<polyline class="rating-line" points="${line}"/>`,
    ...ratings.map((r, i) => `<circle class="rating-point" cx="${x(i).toFixed(1)}" cy="${y(r).toFixed(1)}" r="2"><title>${r.toFixed(2)}</title></circle>`),
    `<text class="caption" x="${PAD}" y="12">${escapeText(t("plot.caption", { name, rating: last.toFixed(2), count: changes.length, date: lastDate }))}</text>`,
    "</svg>"].join("");
}

// `rows`: [{rank, name, rating, experience}], best first; `me` is marked.
export function ratingsListSvg(rows, t, me = null) {
  const rowHeight = 16;
  const height = Math.max(1, rows.length) * rowHeight + 8;
  const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" class="plot" role="img" aria-label="${escapeText(t("plot.ratings_list"))}">`;
  if (rows.length === 0) {
    return `${head}<text class="empty" x="${WIDTH / 2}" y="14">${escapeText(t("plot.no_one_listed"))}</text></svg>`;
  }
  const low = Math.min(...rows.map((r) => r.rating)) - 50;
  const high = Math.max(...rows.map((r) => r.rating));
  const barStart = 130;
  const width = (r) => 10 + ((r - low) * (WIDTH - barStart - 50)) / Math.max(1, high - low);
  return [head, ...rows.map((row, i) => {
    const top = 4 + i * rowHeight;
    return `<g class="rating-row${row.name === me ? " own" : ""}" data-name="${escapeText(row.name)}">` +
      `<text x="4" y="${top + 12}">${row.rank}. ${escapeText(row.name)}</text>` +
      `<rect x="${barStart}" y="${top + 2}" width="${width(row.rating).toFixed(1)}" height="${rowHeight - 4}"/>` +
      `<text x="${barStart + width(row.rating) + 4}" y="${top + 12}">${row.rating.toFixed(2)} (${row.experience})</text></g>`;
  }), "</svg>"].join("");
}
