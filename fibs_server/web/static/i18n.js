// The page's words, in message catalogues (messages_*.js, refusals_*.js): every text the
// page shows goes through `t(key, params)`; the markup names its texts with data-i18n
// attributes. What the server's FIBS lines say (the server console) is never translated.
//
// A language's catalogues are fetched when it is chosen, not before: a page fetches its own
// language's only (a test keeps every catalogue's keys the same, so none needs another).

export const LANGUAGE_NAMES = { en: "English", es: "Español" };
const LANGUAGE_KEY = "fibs-language";

let catalogue = {};
let current = "en";
const loading = new Map(); // language -> the promise of its catalogue

// The page's own words, and the server's refusals by their codes (docs/WEB-PROTOCOL.md).
export function catalogueOf(language) {
  if (!loading.has(language)) {
    loading.set(language, Promise.all([import(`./messages_${language}.js`), import(`./refusals_${language}.js`)])
      .then(([page, refusals]) => ({ ...page.default, ...refusals.default })));
  }
  return loading.get(language);
}

// The language a browser asks for first that we have, else English.
export function preferredLanguage(asked, saved) {
  if (saved && saved in LANGUAGE_NAMES) return saved;
  for (const tag of asked ?? []) {
    const base = tag.toLowerCase().split("-")[0];
    if (base in LANGUAGE_NAMES) return base;
  }
  return "en";
}

// The page speaks `language` once its catalogues are in (English for one we do not have).
export async function setLanguage(language) {
  const chosen = language in LANGUAGE_NAMES ? language : "en";
  catalogue = await catalogueOf(chosen);
  current = chosen;
}

export function language() {
  return current;
}

// `{name}` placeholders filled from params; an unknown key shows itself.
export function t(key, params = {}) {
  const template = catalogue[key];
  if (template === undefined) return key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

export function has(key) {
  return key in catalogue;
}

// The markup's texts: data-i18n (text), data-i18n-placeholder, -title and -aria-label.
export function translateDocument(root) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const [attribute, data] of [["placeholder", "i18nPlaceholder"], ["title", "i18nTitle"],
    ["aria-label", "i18nAriaLabel"]]) {
    for (const element of root.querySelectorAll(`[data-${attribute === "aria-label" ? "i18n-aria-label" : `i18n-${attribute}`}]`)) {
      element.setAttribute(attribute, t(element.dataset[data]));
    }
  }
  root.documentElement.lang = current;
}

export function savedLanguage(storage) {
  return storage.getItem(LANGUAGE_KEY);
}

export function saveLanguage(storage, chosen) {
  storage.setItem(LANGUAGE_KEY, chosen);
}

// A refusal's params as its text shows them: `until` (a Unix time, as the server sends a ban's
// end) as a date and time in the page's language.
export function shownParams(params = {}) {
  if (typeof params.until !== "number") return params;
  const until = new Date(params.until * 1000).toLocaleString(language(),
    { dateStyle: "medium", timeStyle: "short" });
  return { ...params, until };
}
