import { invalid } from '../errors.js';

/** Checks `texts` for every `embed` implementation: an array of strings. */
export function validateTexts(method: string, texts: unknown): asserts texts is string[] {
  if (!Array.isArray(texts)) throw invalid(method, 'texts must be an array of strings', texts);
  for (let i = 0; i < texts.length; i++) {
    if (typeof texts[i] !== 'string') throw invalid(method, `texts[${i}] must be a string`, texts[i]);
  }
}
