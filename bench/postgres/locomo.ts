import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RetrievalSet } from '../lib/datasets.js';

/** A LoCoMo conversation as a retrieval set: turns as memories dated by their session. */
export type DatedSet = Omit<RetrievalSet, 'docs'> & { docs: Array<{ id: string; text: string; createdAt?: number }> };

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). */
function sessionTime(text: string): number {
  const m = /^(\d+):(\d+)\s*(am|pm) on (\d+) (\w+), (\d+)$/i.exec(text.trim());
  if (!m) throw new Error(`unreadable LoCoMo session time ${JSON.stringify(text)}`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), MONTHS.indexOf(m[5]!), Number(m[4]), hour, Number(m[2]));
}

/**
 * LoCoMo-dev scored as its README says: one store per conversation, each turn a memory with its
 * `dia_id` as id, text "<speaker>: <text>" (plus the image caption), dated by its session;
 * questions of categories 1–4, with the audit's corrected evidence where it has one.
 */
export async function loadLocomo(dir: string): Promise<DatedSet[]> {
  const samples = JSON.parse(await readFile(join(dir, 'locomo-dev.json'), 'utf8')) as Array<{
    sample_id: string;
    conversation: Record<string, unknown>;
    qa: Array<{ question: string; evidence: string[]; category: number }>;
  }>;
  const fixes = JSON.parse(await readFile(join(dir, 'citation-fixes.json'), 'utf8')) as Array<{ question: string; error_type: string; correct_evidence?: string[] }>;
  const corrected = new Map(fixes.filter((f) => f.error_type === 'WRONG_CITATION' && f.correct_evidence).map((f) => [f.question, f.correct_evidence!]));
  return samples.map((s) => {
    const docs: DatedSet['docs'] = [];
    for (const key of Object.keys(s.conversation)) {
      const session = /^session_(\d+)$/.exec(key);
      if (!session) continue;
      const createdAt = sessionTime(String(s.conversation[`${key}_date_time`]));
      for (const t of s.conversation[key] as Turn[]) {
        docs.push({ id: t.dia_id, text: `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares an image: ${t.blip_caption}]` : ''}`, createdAt });
      }
    }
    const known = new Set(docs.map((d) => d.id));
    const queries = s.qa
      .filter((q) => q.category >= 1 && q.category <= 4)
      .map((q, i) => {
        const evidence = (corrected.get(q.question) ?? q.evidence).flatMap((e) => e.split(/[;\s]+/)).filter((e) => known.has(e));
        return { id: `${s.sample_id}-${i}`, text: q.question, relevant: [...new Set(evidence)] };
      })
      .filter((q) => q.relevant.length > 0);
    return { name: `LoCoMo ${s.sample_id}`, docs, queries };
  });
}
