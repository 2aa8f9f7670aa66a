// The page's reads of the JSON API (docs/WEB-API.md): the answer, or an ApiError saying why
// not, with the seconds to wait when the server refused for asking too often.

export class ApiError extends Error {
  constructor(status, message, retryAfter = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.retryAfter = retryAfter; // seconds, for a 429
  }
}

// `fetcher` is the browser's fetch; the tests give their own.
export async function fetchJson(path, fetcher = fetch) {
  let answer;
  try {
    answer = await fetcher(path, { headers: { Accept: "application/json" } });
  } catch (error) {
    throw new ApiError(0, `The server cannot be reached: ${error.message}`);
  }
  const text = await answer.text();
  if (answer.ok) return JSON.parse(text);
  // The API refuses with {"error": "..."}; the HTTP port's own refusals are plain text.
  let message = text.trim() || `HTTP ${answer.status}`;
  try {
    const body = JSON.parse(text);
    if (typeof body?.error === "string") message = body.error;
  } catch {
    // plain text: kept as it is
  }
  const retryAfter = answer.status === 429 ? Number(answer.headers.get("Retry-After")) || 1 : null;
  throw new ApiError(answer.status, message, retryAfter);
}
