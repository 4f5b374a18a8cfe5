/**
 * Questions about a typed relation ("what does X depend on?", "what replaced X?", "what is X
 * ultimately derived from?"), read without a language model. A proximity walk cannot answer
 * them: it ranks whatever is near the memory the question is about, in every direction and over
 * every edge type, with the nearest first, so "ultimately" gets the next step and the subject
 * itself outranks its answer. Knowing the edge type, the direction and whether the far end is
 * wanted lets the graph leg follow exactly that relation.
 */
import { EDGE_TYPES } from '../types.js';
import type { GraphHit } from '../legs/types.js';

export interface RelationQuestion {
  type: string;
  /** `out`: the answer is what the subject points at ("what does X depend on"); `in`: what points at it ("what depends on X"). */
  direction: 'out' | 'in';
  /** The far ends of the relation ("ultimately", "in the end", "root"), not its next step. */
  farthest: boolean;
  /** The query without the relation's words: what names the memory it asks about. */
  subject: string;
}

interface Pattern {
  type: string;
  direction: 'out' | 'in';
  pattern: RegExp;
}

// Only questions are read (a statement that "X was the support" asks nothing). An auxiliary
// before the verb puts the subject between them ("what does X depend on"); a
// question word right before the verb makes the answer its subject ("which services depend on X").
const AUX = String.raw`\b(?:what|which|who|whom|where)\b.*?\b(?:do|does|did|will|would|can|could|is|are|was|were)\b\s+\S.*?\s+`;
const ASKER = String.raw`\b(?:what|which|who)\b(?:\s+(?!(?:do|does|did|is|are|was|were)\b)[\p{L}\p{N}-]+){0,2}\s+(?:else\s+)?`;

// The subject-first verb ends its clause ("what does X depend on?"); followed by more words it is
// usually another sense ("what did Caroline support at the group", "what do I need to bring").
const CLAUSE_END = String.raw`(?:\s+(?:most|mostly|directly|now|today))?\s*(?:[?.!,;]|$)`;
const out = (type: string, verbs: string): Pattern => ({ type, direction: 'out', pattern: new RegExp(`${AUX}(?:ultimately\\s+|eventually\\s+|really\\s+)?(?:${verbs})${CLAUSE_END}`, 'iu') });
const into = (type: string, verbs: string): Pattern => ({ type, direction: 'in', pattern: new RegExp(`${ASKER}(?:(?:ultimately|eventually|really)\\s+)?(?:${verbs})\\b`, 'iu') });
const phrase = (type: string, direction: 'out' | 'in', words: string): Pattern => ({ type, direction, pattern: new RegExp(`\\b(?:${words})\\b`, 'iu') });

// Subject-first forms are tried before answer-first ones: "what does redis depend on" also reads
// as "what <word> <word> depend on" when the auxiliary is not excluded, so order settles it.
const PATTERNS: readonly Pattern[] = [
  out(EDGE_TYPES.DEPENDS_ON, String.raw`depend\s+(?:up)?on|rely\s+(?:up)?on|need|require`),
  out(EDGE_TYPES.DERIVED_FROM, String.raw`derived\s+from|based\s+on|built\s+on|come\s+from|derive\s+from`),
  out(EDGE_TYPES.SUPERSEDES, String.raw`replace|supersede`),
  // "what was replaced by X": the answer is the older memory, so X points at it.
  { type: EDGE_TYPES.SUPERSEDES, direction: 'out', pattern: new RegExp(`${ASKER}(?:is|was|are|were|has\\s+been|have\\s+been)\\s+(?:replaced|superseded)\\s+by\\b`, 'iu') },
  phrase(EDGE_TYPES.SUPERSEDES, 'in', String.raw`(?:replaced|superseded)\s+by`),
  out(EDGE_TYPES.IMPLEMENTS, 'implement'),
  out(EDGE_TYPES.EXTENDS, 'extend'),
  out(EDGE_TYPES.REFERENCES, 'reference|cite'),
  out(EDGE_TYPES.CONTRADICTS, 'contradict'),
  out(EDGE_TYPES.SUPPORTS, 'support'),
  into(EDGE_TYPES.DEPENDS_ON, String.raw`(?:depends|depend|depended|relies|rely|relied)\s+(?:up)?on|(?:needs|requires|needed|required)`),
  into(EDGE_TYPES.DERIVED_FROM, String.raw`(?:is\s+|are\s+|was\s+|were\s+)?(?:derived|derives|derive)\s+from|(?:is\s+|are\s+|was\s+|were\s+)?based\s+on`),
  into(EDGE_TYPES.SUPERSEDES, String.raw`(?:has\s+|have\s+)?(?:replaced|replaces|superseded|supersedes)`),
  into(EDGE_TYPES.IMPLEMENTS, 'implements|implemented'),
  into(EDGE_TYPES.EXTENDS, 'extends|extended'),
  into(EDGE_TYPES.REFERENCES, 'references|referenced|cites|cited'),
  into(EDGE_TYPES.CONTRADICTS, 'contradicts|contradicted'),
  into(EDGE_TYPES.SUPPORTS, 'supports|supported'),
  phrase(EDGE_TYPES.DEPENDS_ON, 'out', String.raw`dependencies\s+of|prerequisites?\s+(?:of|for)`),
  phrase(EDGE_TYPES.DEPENDS_ON, 'in', String.raw`dependents\s+of`),
  phrase(EDGE_TYPES.IMPLEMENTS, 'in', String.raw`implementations?\s+of`),
  phrase(EDGE_TYPES.SUPPORTS, 'in', String.raw`evidence\s+for`),
];

// Every pattern above needs one of these stems, so a query without any is no relation question:
// one scan instead of the 23 patterns (7.9 → 0.14 µs a query warm; the patterns took ~70 µs of a
// 10k hybrid recall, whose caches the dense scan has just emptied). Same flags as the patterns,
// so case folding finds a stem wherever it lets a pattern match. A new verb above needs its stem
// here too.
const RELATION_STEM = /depend|rel[iy]|need|requir|deriv|based|built|come|replac|supersed|implement|extend|referenc|cite|contradict|support|prerequisit|evidence/iu;

// The words that frame a relation question rather than name its subject: "depend" in "what does
// the checkout service depend on?" would otherwise make every memory saying "depends" a subject.
const FRAME_WORDS = /\b(?:depend(?:s|ed|ent|encies|ents)?|rel(?:y|ies|ied)|upon|needs?|needed|requires?|required|deriv(?:e|es|ed)|based|built|comes?|replac(?:e|es|ed)|supersed(?:e|es|ed)|implement(?:s|ed|ations?)?|extend(?:s|ed)?|referenc(?:e|es|ed)|cit(?:e|es|ed)|contradict(?:s|ed)?|support(?:s|ed)?|prerequisites?|evidence|ultimately|eventually|transitively|root|else|really)\b/giu;

const FARTHEST = /\b(?:ultimately|eventually|in the end|at the (?:root|bottom)|root|transitively|all the way down)\b/iu;
// The subject may be quoted and may itself hold a relation's words ("what does "X needs Y" depend on?").
const QUOTED = /["“”][^"“”]*["“”]/gu;

// A question is a sentence; a longer query is a passage to match, and the lazy gaps in the
// patterns would cost time quadratic in its length.
const MAX_QUESTION_LENGTH = 300;

/** The relation a query asks about, or null when it asks none the library knows. */
export function readRelationQuestion(query: string): RelationQuestion | null {
  if (query.length > MAX_QUESTION_LENGTH || !RELATION_STEM.test(query)) return null;
  const unquoted = query.replace(QUOTED, ' § ');
  for (const { type, direction, pattern } of PATTERNS) {
    if (pattern.test(unquoted)) return { type, direction, farthest: FARTHEST.test(unquoted), subject: subjectOf(query) };
  }
  return null;
}

function subjectOf(query: string): string {
  let subject = '';
  let last = 0;
  for (const quoted of query.matchAll(QUOTED)) {
    subject += query.slice(last, quoted.index).replace(FRAME_WORDS, ' ') + quoted[0];
    last = quoted.index + quoted[0].length;
  }
  return (subject + query.slice(last).replace(FRAME_WORDS, ' ')).replace(/\s+/gu, ' ').trim();
}

/**
 * The answers among a relation walk's hits, best first. Only the strongest anchor that has the
 * relation is the question's subject: the others were anchors only because they resemble it.
 * For the far ends, memories the relation leads on from come after those where it stops, each
 * group farthest first.
 */
export function relationAnswers(hits: readonly GraphHit[], question: RelationQuestion): GraphHit[] {
  if (hits.length === 0) return [];
  const subject = Math.min(...hits.map((h) => h.anchorRank));
  const answers = hits.filter((h) => h.anchorRank === subject);
  if (!question.farthest) return answers;
  const passedThrough = new Set(answers.flatMap((h) => h.via));
  return answers.sort((a, b) => Number(passedThrough.has(a.no)) - Number(passedThrough.has(b.no)) || b.distance - a.distance || b.weight - a.weight || a.no - b.no);
}

/** How far a walk follows a relation for its far ends: past any chain a memory store holds by hand, short of a cycle's cost. */
export const FARTHEST_DEPTH = 16;
