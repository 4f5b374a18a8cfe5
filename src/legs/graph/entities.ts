/**
 * Entities a memory mentions, found without a language model: runs of capitalised words
 * ("Buddy Hield", "Super Bowl 50", "LGBTQ"), identifiers (`adr-007`, `#4821`, versions) and
 * quoted phrases. They are normalised (NFKC, lower case, single
 * spaces) so "Buddy Hield" in one memory meets "buddy hield" named by a query.
 *
 * Sentence-initial capitals are ambiguous ("Yeah", "Thanks"); they are kept and left to the
 * entity graph's specificity weighting (an entity many memories mention carries little), which
 * is cheaper and more general than a dictionary of interjections.
 */

/** Changes whenever some text yields different entities; saved entity indexes from another version are rebuilt. */
export const EXTRACTOR_VERSION = 1;

// Function words that start sentences but never names; a run starting with one drops it.
const LEADING_FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'this', 'that', 'these', 'those', 'it', 'its', 'he', 'she', 'they', 'we', 'i', 'you',
  'his', 'her', 'their', 'our', 'my', 'your', 'in', 'on', 'at', 'of', 'for', 'to', 'from', 'by', 'with',
  'and', 'but', 'or', 'if', 'when', 'what', 'who', 'which', 'where', 'how', 'why', 'is', 'are', 'was',
  'were', 'do', 'does', 'did', 'has', 'have', 'had', 'as', 'so', 'after', 'before', 'during', 'also',
]);
// Lower-case words allowed inside a name: "Bank of America", "Leonardo da Vinci".
const CONNECTORS: ReadonlySet<string> = new Set(['of', 'the', 'de', 'da', 'di', 'del', 'van', 'von', 'and', '&']);
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}'’.-]*/gu;
const CAPITALISED = /^[\p{Lu}\p{N}]/u;
const QUOTED = /["“”]([^"“”]{3,60})["“”]/gu;
// Identifiers: `#4821`, and words glued by - _ . / with a digit somewhere (`ADR-007`, `v1.2.3`,
// `gpt-4o`). The lexical tokenizer would find them too, but at twice the cost of this pass.
// The lookbehind lets a match start only where an identifier can: without it every position inside
// a long word or a long `a-b-c…` chain starts a scan to its end, quadratic in the run's length.
const IDENTIFIER = /#\d[\p{L}\p{N}_-]*|(?<![\p{L}\p{N}_./-])[\p{L}\p{N}]+(?:[-_./][\p{L}\p{N}]+)+/gu;
const HAS_DIGIT = /\p{N}/u;
const NAME_START = /[\p{Lu}\p{N}]/u;
const MAX_NAME_WORDS = 6;

/** Normalised entity keys mentioned in `text`, each once, in first-seen order. */
export function extractEntities(text: string): string[] {
  const prepared = text.normalize('NFKC');
  const out = new Set<string>();
  // A name starts with a capital or a digit and an identifier holds a digit: text without either
  // (most lines of lower-case notes) has no names or identifiers, and skips both scans.
  if (NAME_START.test(prepared)) {
    for (const sentence of prepared.split(/(?<=[.!?:;])\s+|\n+/u)) if (NAME_START.test(sentence)) addNames(sentence, out);
  }
  if (prepared.includes('"') || prepared.includes('“') || prepared.includes('”')) for (const m of prepared.matchAll(QUOTED)) addKey(m[1]!, out);
  if (HAS_DIGIT.test(prepared)) for (const m of prepared.matchAll(IDENTIFIER)) if (HAS_DIGIT.test(m[0])) addKey(m[0], out);
  return [...out];
}

function addNames(sentence: string, out: Set<string>): void {
  let run: string[] = [];
  let atStart = true;
  let runAtStart = true;
  const flush = () => {
    while (run.length > 0 && CONNECTORS.has(run[run.length - 1]!.toLowerCase())) run.pop();
    while (run.length > 0 && LEADING_FUNCTION_WORDS.has(run[0]!.toLowerCase())) run.shift();
    if (run.length > 0 && run.length <= MAX_NAME_WORDS) {
      addName(run, out);
      // "Hey Mel" and "Buddy Hield" look alike at a sentence start: keep both readings.
      if (runAtStart && run.length > 1) addName(run.slice(1), out);
      // "Sacramento Kings of the NBA" is also "Sacramento Kings" and "NBA".
      const parts = run.join(' ').split(/\s+(?:of|the|de|da|di|del|van|von|and|&)(?:\s+the)?\s+/u);
      if (parts.length > 1) for (const part of parts) addName(part.split(' '), out);
    }
    run = [];
  };
  for (const m of sentence.matchAll(WORD)) {
    // The lookbehind keeps a long run of `.'-` inside a word from being rescanned at every position.
    const word = trimmable(m[0]) ? m[0].replace(/['’]s$|(?<![.'’-])[.'’-]+$/u, '') : m[0];
    if (word === '') continue;
    // "I" is capitalised by spelling, not because it names something.
    if (capitalised(word) && word !== 'I') {
      if (run.length === 0) runAtStart = atStart;
      run.push(word);
    } else if (run.length > 0 && CONNECTORS.has(word)) run.push(word);
    else flush();
    atStart = false;
  }
  flush();
}

/**
 * Whether a word starts with an upper-case letter or a digit (`\p{Lu}`, `\p{N}`). This and
 * `trimmable` read ASCII by character code: a regular expression per word for each was a tenth of
 * extracting a memory's entities.
 */
function capitalised(word: string): boolean {
  const c = word.charCodeAt(0);
  if (c < 0x80) return (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  return CAPITALISED.test(word);
}

/** Whether a word ends in one of `'’.-` or in a possessive `'s` / `’s`. */
function trimmable(word: string): boolean {
  const last = word.charCodeAt(word.length - 1);
  if (last === 39 || last === 0x2019 || last === 46 || last === 45) return true;
  if (last !== 115) return false;
  const before = word.charCodeAt(word.length - 2);
  return before === 39 || before === 0x2019;
}

function addName(words: readonly string[], out: Set<string>): void {
  // A number alone ("2023", "50") is a quantity, not a name.
  if (words.length > 0 && !words.every((w) => /^\p{N}+$/u.test(w))) addKey(words.join(' '), out);
}

function addKey(raw: string, out: Set<string>): void {
  const key = raw.toLowerCase().replace(/\s+/gu, ' ').trim();
  if (key.length >= 2) out.add(key);
}
