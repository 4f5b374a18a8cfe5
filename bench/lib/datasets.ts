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
  docs: Array<{ id: string; text: string }>;
  queries: Array<{ id: string; text: string; relevant: string[] }>;
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
