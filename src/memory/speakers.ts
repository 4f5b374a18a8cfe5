/**
 * Who said a memory. In a conversation store a question about a person ("What has Maria
 * painted?") is answered by that person's own turns, but their name is on every turn they speak
 * and in the greetings of the other's ("Hey Maria"), so it weighs almost nothing in BM25 and the
 * entity graph skips it as too common. Attribution is a different signal from mention: on
 * LoCoMo-dev 99% of the evidence for a question naming one speaker is that speaker's, against 73%
 * of the memories the legs wrongly rank in its top 10.
 */
import type { Metadata } from '../types.js';

/** A transcript line's label: one to three capitalised words and a colon opening the text ("Caroline: …", "Dr Ruth Smith: …"). */
const LABEL = /^(\p{Lu}[\p{L}\p{M}'’.-]*(?: \p{Lu}[\p{L}\p{M}'’.-]*){0,2}):\s/u;

/** How much of a text the label can take; only that much is read per candidate. */
export const LABEL_CHARS = 64;

/** `metadata.speaker` when it is a string, else the label the text opens with, else null. */
export function speakerOf(metadata: Metadata, textHead: string): string | null {
  const given = metadata['speaker'];
  if (typeof given === 'string' && given.trim() !== '') return given.trim();
  return LABEL.exec(textHead)?.[1] ?? null;
}

// A name in a question is capitalised past its first word: "What has Maria painted?". Without one
// the query names nobody, and no candidate's text is read.
const NAME_PAST_FIRST_WORD = /\s[\p{Lu}]/u;

export function mayNameSomeone(query: string): boolean {
  return NAME_PAST_FIRST_WORD.test(query);
}

/** The speakers among `speakers` the query names as whole words, case-insensitively ("Maria's" names Maria). */
export function namedIn(query: string, speakers: Iterable<string>): Set<string> {
  const words = ` ${query.toLowerCase().replace(/[^\p{L}\p{M}\p{N}'’.-]+/gu, ' ').replace(/['’]s\b/gu, '')} `;
  const named = new Set<string>();
  for (const speaker of speakers) if (words.includes(` ${speaker.toLowerCase()} `)) named.add(speaker);
  return named;
}
