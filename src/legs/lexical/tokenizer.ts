/**
 * Text analysis for the lexical leg: one function used for both indexing and querying, so a
 * query term matches exactly when the same surface form would have been indexed.
 *
 * Agent memories are full of identifiers (`ADR-007`, `Order #4821`, `LFM2.5-2.6B-Q4_K_M`, UUIDs,
 * paths, URLs, e-mail addresses, versions). Each is indexed whole AND as its parts: the whole
 * token is rare, so BM25 ranks an exact identifier match above near misses that only share
 * parts (`ADR-070` shares `adr` but not `adr-007` or `007`). Identifiers and numbers are never
 * stemmed, so `4821` and `4812` can never collapse into one term.
 *
 * Decisions:
 * - NFKC first (fullwidth `ＡＤＲ－００７` is `ADR-007`, ligatures split), then `toLowerCase`.
 * - Plain ASCII words are Porter-stemmed. Other scripts are kept as written; Latin and Greek words
 *   with diacritics also emit their folded (and, if then ASCII, stemmed) form: `naïve` meets `naive`.
 * - Han/Hiragana/Katakana runs have no spaces between words: they become overlapping bigrams.
 * - Stop-words (Lucene's English set) are dropped from plain words at index AND query time: they
 *   would only add noise and index size. A whole identifier is never dropped (`to-do` stays).
 * - Repeats across the text are kept, because BM25 needs term frequency; within one chunk each
 *   derived token is emitted once, so `a/a/a` does not inflate `a`.
 */
import { stemmer } from 'stemmer';

/** Changes whenever some text tokenizes differently; snapshots from another version are rebuilt. */
export const TOKENIZER_VERSION = 1;

/** Longer tokens (base64 blobs, minified code) are dropped; their parts still count. */
export const MAX_TOKEN_LENGTH = 255;

/** Lucene's English stop-word set; exported so benchmarks give every peer the same list. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it',
  'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they',
  'this', 'to', 'was', 'will', 'with',
]);

// Letters, marks, digits, ZWNJ/ZWJ (Persian, Indic) and the characters that glue identifiers,
// paths, URLs and e-mail addresses together. Everything else separates chunks.
const CHUNK_CHARS = String.raw`\p{L}\p{M}\p{N}\u200c\u200d\-_.:/\\@#+~?&=%$`;
const CHUNK = new RegExp(`[${CHUNK_CHARS}]+`, 'gu');
const RELATIVE_PREFIX = /^(?:\.{1,2}\/)+/;
// `#4821`, `@alice`, `/usr`, `~/notes`, `$100` keep their sigil; sentence punctuation does not.
const LEADING_JUNK = /^[^\p{L}\p{N}#@/\\~$]+/u;
// `C++` and `C#` keep their tail; a closing `.` `)` `:` `/` does not.
const TRAILING_JUNK = /[^\p{L}\p{M}\p{N}+#]+$/u;
const WORD_ONLY = /^[\p{L}\p{M}\u200c\u200d]+$/u;
const HAS_ALNUM = /[\p{L}\p{N}]/u;
const ASCII_WORD = /^[a-z]+$/;
const ASCII_TEXT = /^[\x00-\x7f]*$/;
// One optional capital then lowercase ASCII letters, short enough that its stem is a valid term.
const SIMPLE_WORD = /^[A-Z]?[a-z]{1,63}$/;
// Word frequencies are Zipfian: a small cache answers most stems; cleared when full to stay bounded.
const STEM_CACHE_SIZE = 50_000;
const STEMS = new Map<string, string>();
const WORD_TERMS = new Map<string, string | null>();
const CAMEL_BOUNDARY = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const CAMEL = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;
const CJK_RUNS = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+|[^\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+/gu;
const VERSION = /^v\d+(?:\.\d+)+/;
const COMPOUND = /[^\p{L}\p{M}\p{N}\u200c\u200d]/u;
const COMBINING = /\p{Mn}/gu;
// Only scripts where accents are optional in practice; elsewhere (Devanagari, Cyrillic й) marks
// change the letter, so stripping them would merge different words.
const FOLDABLE = /^[\p{sc=Latin}\p{sc=Greek}\p{M}]+$/u;
const POSSESSIVE = /(?<=[\p{L}\p{N}])['’]s(?![\p{L}\p{N}])/gu;
const INNER_APOSTROPHE = /(?<=\p{L})['’](?=\p{L})/gu;

// Coarse to fine: `https://host/a-b/c.ts` first splits into `https` `host` `a-b` `c.ts`, then `a`
// `b`, then `c` `ts`, each level emitting its parts, so every meaningful sub-identifier is a term.
const SEPARATORS: readonly RegExp[] = [/[/\\@:?&=#~$%+]/, /-/, /[._]/];

/**
 * Splits text into index terms: lowercased, identifiers whole and split, plain words stemmed.
 *
 * @example
 * tokenize('See ADR-007 for the running decision')
 * // ['see', 'adr-007', 'adr', '007', 'run', 'decis']
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  // ASCII is already NFKC, and both apostrophe rules need an apostrophe: most text skips all three passes.
  const ascii = ASCII_TEXT.test(text);
  let prepared = ascii ? text : text.normalize('NFKC');
  if (prepared.includes("'") || prepared.includes('’')) prepared = prepared.replace(POSSESSIVE, '').replace(INNER_APOSTROPHE, '');
  if (ascii) {
    asciiChunks(prepared, out);
    return out;
  }
  for (const match of prepared.matchAll(CHUNK)) {
    if (SIMPLE_WORD.test(match[0])) {
      // The common case, short-cut: nothing to trim or split, not camelCase, no other script.
      const term = plainTerm(match[0].toLowerCase());
      if (term !== null) out.push(term);
      continue;
    }
    addChunk(match[0], out);
  }
  return out;
}

/** A chunk that is not a simple word: trimmed, then its terms whole and split, each once. */
function addChunk(raw: string, out: string[]): void {
  const chunk = trimEdges(raw);
  if (!HAS_ALNUM.test(chunk)) return;
  const terms = new Set<string>();
  addPiece(chunk, 0, terms);
  for (const term of terms) out.push(term);
}

/** Per ASCII code: 0 separates chunks, else it is in `CHUNK`: 1 a lowercase letter, 2 an uppercase one, 3 any other. */
const ASCII_CLASS = ((inChunk: RegExp) =>
  Uint8Array.from({ length: 128 }, (_, code) => {
    const c = String.fromCharCode(code);
    if (!inChunk.test(c)) return 0;
    return c >= 'a' && c <= 'z' ? 1 : c >= 'A' && c <= 'Z' ? 2 : 3;
  }))(new RegExp(`^[${CHUNK_CHARS}]$`, 'u'));

/**
 * `tokenize`'s chunk loop for ASCII text, by character codes: the same chunks as `CHUNK`, and a
 * plain word is known by the scan that finds its end, so the common case costs one slice and one
 * cache lookup instead of a match object, a pattern test and a lowercased copy: tokenizing the
 * speed benchmark's 100k texts took 200–210 ms instead of 450–490 ms.
 */
function asciiChunks(text: string, out: string[]): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && ASCII_CLASS[text.charCodeAt(i)] === 0) i++;
    if (i === n) return;
    const start = i;
    const first = ASCII_CLASS[text.charCodeAt(i)]!;
    let lower = 0;
    for (i++; i < n; i++) {
      const kind = ASCII_CLASS[text.charCodeAt(i)]!;
      if (kind === 0) break;
      if (kind === 1) lower++;
    }
    const length = i - start;
    // A letter and then lowercase letters only: a plain word, not camelCase, which the word path
    // would stem whole (or drop); its stem is no longer than it, so a valid term.
    if (first === 3 || lower !== length - 1 || length > MAX_TOKEN_LENGTH) {
      addChunk(text.slice(start, i), out);
      continue;
    }
    const term = wordTerm(text.slice(start, i));
    if (term !== null) out.push(term);
  }
}

/** `plainTerm` of a simple word as written (any case), cached by that form: no lowercased copy to look up. */
function wordTerm(word: string): string | null {
  let term = WORD_TERMS.get(word);
  if (term === undefined) {
    if (WORD_TERMS.size >= STEM_CACHE_SIZE) WORD_TERMS.clear();
    term = plainTerm(word.toLowerCase());
    WORD_TERMS.set(word, term);
  }
  return term;
}

/**
 * Words that shape a question rather than name what it is about: question words, auxiliaries and
 * pronouns. They stay in the index (a memory may be about "who"), but a query drops them when it
 * has other terms, because the memories that match them best are other questions: in a
 * conversation, "What is Caroline's identity?" matched "Caroline: Cool! What did it look like?"
 * on `what` (LoCoMo-dev lexical recall@10 0.580 → 0.655, hybrid 0.691 → 0.730 with this alone).
 */
export const QUESTION_WORD_LIST: readonly string[] = (
  'what who whom whose which where when why how do does did has have had i you me my your we our he she his her its them him ' +
  'were been being would could should can might shall must about from up out so than too very just'
).split(' ');
const QUESTION_WORDS: ReadonlySet<string> = new Set(tokenize(QUESTION_WORD_LIST.join(' ')));

/**
 * The distinct terms of a query, in first-seen order. Same analysis as {@link tokenize};
 * repeats are dropped so a repeated query word does not count twice, and question words are
 * dropped unless nothing else is left (see `QUESTION_WORDS`).
 *
 * @example
 * queryTerms('Order #4821, order') // ['order', '#4821', '4821']
 * queryTerms('Who leads the team?') // ['lead', 'team']
 */
export function queryTerms(text: string): string[] {
  const terms = [...new Set(tokenize(text))];
  const content = terms.filter((t) => !QUESTION_WORDS.has(t));
  return content.length > 0 ? content : terms;
}

/**
 * True for a whole identifier such as `adr-007`, `#4821` or `v1.2.3`: a term holding a character
 * other than a letter or digit. The index boosts these so an exact identifier outranks near misses.
 */
export function isCompound(term: string): boolean {
  return COMPOUND.test(term);
}

function trimEdges(piece: string): string {
  return piece.replace(RELATIVE_PREFIX, '').replace(LEADING_JUNK, '').replace(TRAILING_JUNK, '');
}

/** A piece that is only letters is a word (or a camelCase identifier); anything else is an identifier. */
function addPiece(piece: string, level: number, out: Set<string>): void {
  if (WORD_ONLY.test(piece)) {
    if (!CAMEL.test(piece)) {
      addWord(piece.toLowerCase(), out);
      return;
    }
    push(piece.toLowerCase(), out);
    for (const part of piece.split(CAMEL_BOUNDARY)) addWord(part.toLowerCase(), out);
    return;
  }
  const whole = piece.toLowerCase();
  push(whole, out);
  if (VERSION.test(whole)) push(whole.slice(1), out);
  for (let l = level; l < SEPARATORS.length; l++) {
    const separator = SEPARATORS[l]!;
    if (!separator.test(piece)) continue;
    for (const raw of piece.split(separator)) {
      const part = trimEdges(raw);
      if (HAS_ALNUM.test(part)) addPiece(part, l + 1, out);
    }
    return;
  }
}

function addWord(word: string, out: Set<string>): void {
  if (!CJK.test(word)) {
    addPlain(word, out);
    return;
  }
  for (const run of word.match(CJK_RUNS) ?? []) {
    if (!CJK.test(run)) {
      // A run cut out after a CJK character may start with a joiner or mark; trim as a chunk would.
      addPlain(trimEdges(run), out);
      continue;
    }
    // By code point: Han extension characters are surrogate pairs.
    const chars = Array.from(run);
    if (chars.length === 1) push(run, out);
    for (let i = 0; i + 1 < chars.length; i++) push(chars[i]! + chars[i + 1]!, out);
  }
}

/** A lowercase ASCII word's term: null for a stop word, else its (cached) Porter stem. */
function plainTerm(word: string): string | null {
  if (STOP_WORDS.has(word)) return null;
  let stem = STEMS.get(word);
  if (stem === undefined) {
    if (STEMS.size >= STEM_CACHE_SIZE) STEMS.clear();
    stem = stemmer(word);
    STEMS.set(word, stem);
  }
  return stem;
}

function addPlain(word: string, out: Set<string>): void {
  if (STOP_WORDS.has(word)) return;
  if (ASCII_WORD.test(word)) {
    push(plainTerm(word)!, out);
    return;
  }
  push(word, out);
  if (!FOLDABLE.test(word)) return;
  const folded = word.normalize('NFD').replace(COMBINING, '').normalize('NFC');
  if (folded === word || STOP_WORDS.has(folded)) return;
  push(ASCII_WORD.test(folded) ? stemmer(folded) : folded, out);
}

function push(term: string, out: Set<string>): void {
  if (term.length <= MAX_TOKEN_LENGTH && HAS_ALNUM.test(term)) out.add(term);
}
