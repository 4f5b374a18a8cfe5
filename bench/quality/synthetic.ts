import { HybridMemory, type Embedder, type MemoryInput, type RecallOptions } from '../../src/index.js';
import { rng } from '../lib/stats.js';
import { averageScores, ndcgAt, recallAt, reciprocalRank, type Scores } from './metrics.js';
import { openStores, rankedIds, systemsFor } from './systems.js';

/**
 * A deterministic, seeded suite with labelled cases for each leg, all in one store so every
 * category's memories are the others' distractors. Each case: a query, the relevant ids, and
 * per-case recall options (as-of time, graph depth).
 */
interface Case {
  category: 'identifier' | 'paraphrase' | 'multi-hop' | 'supersession' | 'as-of' | 'recency';
  query: string;
  relevant: string[];
  options?: RecallOptions;
}

const DAY = 86_400_000;
export const SUITE_NOW = Date.parse('2026-11-30T12:00:00Z');

export const PARAPHRASES: Array<[string, string]> = [
  ['automobile maintenance', 'car engine repair and oil changes at the garage'],
  ['how do I reset my password', 'steps to recover account credentials after forgetting them'],
  ['the cat is sleeping on the sofa', 'a kitten naps on the couch all afternoon'],
  ['stock market crash', 'equities plunged as investors panicked and indices fell sharply'],
  ['heart attack symptoms', 'chest pain and shortness of breath can signal a myocardial infarction'],
  ['cheap flights to Paris', 'low-cost airfare deals for travel to France'],
  ['learning to play guitar', 'beginner lessons for strumming chords on a six-string'],
  ['climate change effects', 'global warming is raising sea levels and intensifying heatwaves'],
  ['best way to cook rice', 'simmer the grains with water until fluffy, then let them rest'],
  ['job interview tips', 'how to prepare answers and impress a hiring manager'],
  ['the server is down', 'the backend host stopped responding and requests time out'],
  ['buying a new house', 'purchasing a home requires a mortgage and a down payment'],
  ['children vaccination schedule', 'immunisation timetable for kids and infants'],
  ['reduce electricity bill', 'lower power consumption to save money on energy costs'],
  ['database migration failed', 'the schema upgrade script errored while altering tables'],
  ['improve sleep quality', 'tips for resting better at night and avoiding insomnia'],
  ['train delayed due to snow', 'the railway service ran late because of the blizzard'],
  ['learn a foreign language', 'studying vocabulary and grammar to become fluent in Spanish'],
  ['dog keeps barking at night', 'the puppy howls loudly after dark and wakes the neighbours'],
  ['quarterly revenue grew', 'sales income increased over the last three months'],
];

const CHAINS: string[][] = [
  ['The checkout service needs a faster payment path', 'Stripe webhook handler reliability', 'Kafka broker partition rebalancing', 'Zookeeper quorum disk latency'],
  ['Mobile app onboarding redesign', 'Figma component library tokens', 'Typography scale with Inter variable font'],
  ['Quarterly investor update deck', 'Churn analysis for enterprise accounts', 'Salesforce opportunity export job', 'Nightly ETL cron on the warehouse VM'],
  ['Launch of the Berlin office', 'Lease negotiation with Hausverwaltung GmbH', 'Notary appointment in Kreuzberg'],
  ['Agent memory search latency', 'HNSW graph construction parameters', 'Embedding backfill throughput'],
  ['Data privacy audit', 'GDPR retention policy', 'S3 lifecycle rules for cold logs', 'Glacier restore costs'],
];

const SUPERSESSIONS: Array<[string, string, string]> = [
  ['The user lives in Delhi', 'I moved from Delhi to Bengaluru last week', 'where does the user live?'],
  ['Our CI runs on Jenkins', 'We migrated CI from Jenkins to GitHub Actions', 'which CI system do we use?'],
  ['The team lead is Priya', 'Marco took over as team lead from Priya', 'who leads the team?'],
  ['Deploys happen every Friday', 'Deploys now happen continuously on every merge', 'when do deploys happen?'],
  ['The API rate limit is 100 requests per minute', 'The API rate limit was raised to 600 requests per minute', 'what is the API rate limit?'],
  ['We store embeddings in Pinecone', 'Embeddings moved from Pinecone to local SQLite-WASM', 'where are embeddings stored?'],
];

const RECENCY = ['standup notes for the platform team', 'weekly sync about the hiring pipeline', 'retro on the billing outage', 'planning for the mobile release'];

export function buildSuite(seed = 1): { inputs: MemoryInput[]; edges: Array<[string, string, string]>; cases: Case[] } {
  const random = rng(seed);
  const inputs: MemoryInput[] = [];
  const edges: Array<[string, string, string]> = [];
  const cases: Case[] = [];
  const at = (daysAgo: number) => SUITE_NOW - daysAgo * DAY;

  const used = new Set<number>();
  const freshNumber = (lo: number, hi: number) => {
    let n: number;
    do n = lo + Math.floor(random() * (hi - lo));
    while (used.has(n));
    used.add(n);
    return n;
  };
  const idForms: Array<[(n: number) => string, (n: number) => string[], number, number]> = [
    [(n) => `ADR-${String(n).padStart(3, '0')}`, (n) => [`ADR-${String(n * 10).padStart(3, '0')}`, `ADR-${String(n).padStart(4, '0')}1`, `ADR-${String(n + 1).padStart(3, '0')}`], 10, 99],
    [(n) => `Order #${n}`, (n) => [`Order #${String(n).slice(0, 2)}${String(n)[3]}${String(n)[2]}`, `Order #${n}0`, `Order #${n + 9}`], 1000, 9999],
    [(n) => `Section ${n}`, (n) => [`Section ${Math.floor(n / 10)}`, `Section ${n}0`, `Section ${n + 1}`], 100, 999],
    [(n) => `TKT-${n}`, (n) => [`TKT-${n + 1}`, `TKT-${String(n).split('').reverse().join('')}`, `TKT-${n}9`], 1000, 9999],
  ];
  const topics = ['billing', 'search', 'onboarding', 'security', 'storage', 'pricing', 'mobile', 'analytics'];
  for (let i = 0; i < 24; i++) {
    const [form, misses, lo, hi] = idForms[i % idForms.length]!;
    const n = freshNumber(lo, hi);
    const topic = topics[Math.floor(random() * topics.length)]!;
    const target = `id-${i}`;
    inputs.push({ id: target, text: `${form(n)}: decision about ${topic} approved by the architecture group`, createdAt: at(30 + i) });
    misses(n).forEach((m, j) => inputs.push({ id: `id-${i}-miss-${j}`, text: `${m}: decision about ${topic} approved by the architecture group`, createdAt: at(20 + j) }));
    cases.push({ category: 'identifier', query: `what was decided in ${form(n)}?`, relevant: [target] });
  }

  PARAPHRASES.forEach(([query, doc], i) => {
    inputs.push({ id: `para-${i}`, text: doc, createdAt: at(10 + i) });
    cases.push({ category: 'paraphrase', query, relevant: [`para-${i}`] });
  });

  CHAINS.forEach((chain, c) => {
    chain.forEach((text, j) => inputs.push({ id: `chain-${c}-${j}`, text, createdAt: at(40 + j) }));
    for (let j = 0; j + 1 < chain.length; j++) edges.push([`chain-${c}-${j}`, `chain-${c}-${j + 1}`, 'DEPENDS_ON']);
    cases.push({ category: 'multi-hop', query: `what does "${chain[0]}" ultimately depend on?`, relevant: [`chain-${c}-${chain.length - 1}`], options: { depth: chain.length - 1 } });
  });

  SUPERSESSIONS.forEach(([oldText, newText, question], i) => {
    inputs.push({ id: `old-${i}`, text: oldText, createdAt: at(400) }, { id: `new-${i}`, text: newText, createdAt: at(7 + i) });
    edges.push([`new-${i}`, `old-${i}`, 'SUPERSEDES']);
    cases.push({ category: 'supersession', query: question, relevant: [`new-${i}`] });
    cases.push({ category: 'as-of', query: question, relevant: [`old-${i}`], options: { asOf: at(100) } });
  });

  RECENCY.forEach((text, i) => {
    inputs.push({ id: `rec-${i}-old`, text, createdAt: at(300) }, { id: `rec-${i}-new`, text, createdAt: at(2) });
    cases.push({ category: 'recency', query: text, relevant: [`rec-${i}-new`] });
  });
  return { inputs, edges, cases };
}

export interface SuiteResult {
  /** system → category → scores (recall@1, recall@5, recall@10, MRR, nDCG@10). */
  bySystem: Record<string, Record<string, Scores>>;
  memories: number;
  cases: number;
}

export async function runSynthetic(embedder: Embedder | null): Promise<SuiteResult> {
  const { inputs, edges, cases } = buildSuite();
  const systems = systemsFor(embedder !== null);
  const stores = await openStores(async () => {
    const mem = await HybridMemory.open({ embedder, now: () => SUITE_NOW });
    await mem.storeMany(inputs);
    await mem.relateMany(edges.map(([from, to, type]) => ({ from, to, type })));
    await mem.ready();
    return mem;
  });
  const bySystem: SuiteResult['bySystem'] = {};
  for (const system of systems) {
    const rows = new Map<string, Array<Record<string, number>>>();
    for (const c of cases) {
      const ranked = await rankedIds(stores, c.query, system, 10, c.options);
      const relevant = new Set(c.relevant);
      const row = { 'recall@1': recallAt(ranked, relevant, 1), 'recall@5': recallAt(ranked, relevant, 5), 'recall@10': recallAt(ranked, relevant, 10), MRR: reciprocalRank(ranked, relevant), 'nDCG@10': ndcgAt(ranked, relevant, 10) };
      for (const key of [c.category, 'all']) rows.set(key, [...(rows.get(key) ?? []), row]);
    }
    bySystem[system.name] = Object.fromEntries([...rows].map(([k, v]) => [k, averageScores(v)]));
  }
  await stores.close();
  return { bySystem, memories: inputs.length, cases: cases.length };
}
