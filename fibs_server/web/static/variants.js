// The variants the server plays, with their facts, as its `hello` message lists them
// (docs/WEB-PROTOCOL.md): the page keeps no list of its own. Their names in each language
// are in messages_*.js, keyed `variant.<name>`.
import { t } from "./i18n.js";

const known = new Map(); // name -> facts

export function learnVariants(variants) {
  known.clear();
  for (const variant of variants) known.set(variant.name, variant);
}

export function variants() {
  return [...known.values()];
}

// A variant among a match's terms, in the page's language: nothing for the default one
// (standard backgammon, which no word chooses).
export function shownVariant(name) {
  return known.get(name)?.word === null ? [] : [t(`variant.${name}`)];
}
