import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Loaders for the public evaluation sets. Paths are options so users can point at their own copies. */

/** RFC 4180 CSV: quoted fields may hold commas, newlines and doubled quotes. */
export function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field), rows.push(row), (row = []), (field = '');
    } else field += ch;
  }
  if (field !== '' || row.length > 0) row.push(field), rows.push(row);
  const [header, ...body] = rows;
  return body.filter((r) => r.length === header!.length).map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

/** SciFact abstracts are Python list literals of sentences. */
function pythonStrings(literal: string): string[] {
  const out: string[] = [];
  for (const m of literal.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)) out.push((m[1] ?? m[2]!).replace(/\\(.)/g, '$1'));
  return out;
}

export interface RetrievalSet {
  name: string;
  docs: Array<{ id: string; text: string; createdAt?: number; metadata?: Record<string, string | number> }>;
  /** `category` groups queries in the report (LoCoMo's question kinds). */
  queries: Array<{ id: string; text: string; relevant: string[]; category?: string }>;
}

/** A benchmark made of several independent stores (one per LoCoMo conversation), scored together. */
export interface RetrievalSuite {
  name: string;
  parts: RetrievalSet[];
}

export async function loadSciFact(dir: string): Promise<RetrievalSet> {
  const corpus = parseCsv(await readFile(join(dir, 'corpus_train.csv'), 'utf8'));
  const claims = parseCsv(await readFile(join(dir, 'claims_validation.csv'), 'utf8'));
  const docs = corpus.map((r) => ({ id: r.doc_id!, text: `${r.title}. ${pythonStrings(r.abstract!).join(' ')}` }));
  const byClaim = new Map<string, { text: string; relevant: Set<string> }>();
  for (const c of claims) {
    if (!c.evidence_doc_id) continue;
    const entry = byClaim.get(c.id!) ?? { text: c.claim!, relevant: new Set<string>() };
    entry.relevant.add(c.evidence_doc_id);
    byClaim.set(c.id!, entry);
  }
  return { name: 'SciFact (validation claims with evidence)', docs, queries: [...byClaim].map(([id, q]) => ({ id, text: q.text, relevant: [...q.relevant] })) };
}

export async function loadHotpot(dir: string): Promise<RetrievalSet> {
  const questions = JSON.parse(await readFile(join(dir, 'hotpotqa_train.json'), 'utf8')) as Array<{ _id: string; question: string; supporting_facts: Array<[string, number]> }>;
  const corpus = JSON.parse(await readFile(join(dir, 'hotpotqa_train_corpus.json'), 'utf8')) as Record<string, string[]>;
  return {
    name: 'HotpotQA-100',
    docs: Object.entries(corpus).map(([title, sentences]) => ({ id: title, text: `${title}. ${sentences.join('')}` })),
    queries: questions.map((q) => ({ id: q._id, text: q.question, relevant: [...new Set(q.supporting_facts.map(([t]) => t))] })),
  };
}

const LOCOMO_CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** LoCoMo session dates read "1:56 pm on 8 May, 2023". */
export function locomoDate(text: string): number {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(text);
  if (!m) throw new Error(`unreadable LoCoMo date "${text}"`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), MONTHS.indexOf(m[5]!.toLowerCase()), Number(m[4]), hour, Number(m[2]));
}

interface LocomoTurn { speaker: string; dia_id: string; text: string; blip_caption?: string }
interface LocomoSample { sample_id: string; conversation: Record<string, unknown>; qa: Array<{ question: string; evidence: string[]; category: number }> }

/**
 * LoCoMo as its README scores it: one store per conversation, every turn a memory (id = dia_id,
 * text "<speaker>: <text>" plus the image caption, createdAt = the session's date), questions of
 * categories 1–4 with the audit's corrected citations. Evidence ids that name no turn are dropped.
 */
export async function loadLocomo(dir: string): Promise<RetrievalSuite> {
  const samples = JSON.parse(await readFile(join(dir, 'locomo-dev.json'), 'utf8')) as LocomoSample[];
  const fixes = JSON.parse(await readFile(join(dir, 'citation-fixes.json'), 'utf8')) as Array<{ question_id: string; error_type: string; correct_evidence: string[] }>;
  const corrected = new Map(fixes.filter((f) => f.error_type === 'WRONG_CITATION').map((f) => [f.question_id, f.correct_evidence]));
  const parts = samples.map((sample, s): RetrievalSet => {
    const c = sample.conversation;
    const docs: RetrievalSet['docs'] = [];
    for (let n = 1; Array.isArray(c[`session_${n}`]); n++) {
      const createdAt = locomoDate(String(c[`session_${n}_date_time`]));
      (c[`session_${n}`] as LocomoTurn[]).forEach((t, turn) => {
        const image = t.blip_caption ? ` [shares an image: ${t.blip_caption}]` : '';
        docs.push({ id: t.dia_id, text: `${t.speaker}: ${t.text}${image}`, createdAt, metadata: { sessionId: `session_${n}`, turn } });
      });
    }
    const known = new Set(docs.map((d) => d.id));
    const queries: RetrievalSet['queries'] = [];
    sample.qa.forEach((q, i) => {
      const category = LOCOMO_CATEGORIES[q.category];
      if (!category) return;
      const cited = corrected.get(`locomo_${s}_qa${i}`) ?? q.evidence;
      const relevant = [...new Set(cited.flatMap((e) => e.split(/[;\s]+/)).filter((e) => known.has(e)))];
      if (relevant.length > 0) queries.push({ id: `${sample.sample_id}/${i}`, text: q.question, relevant, category });
    });
    return { name: sample.sample_id, docs, queries };
  });
  return { name: 'LoCoMo-dev', parts };
}
