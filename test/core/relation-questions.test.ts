import { afterEach, describe, expect, it } from 'vitest';
import type { HybridMemory } from '../../src/index.js';
import { readRelationQuestion, relationAnswers } from '../../src/memory/relation-question.js';
import type { GraphHit } from '../../src/legs/types.js';
import { ids, openMemory } from '../support/memory.js';

describe('readRelationQuestion', () => {
  const cases: Array<[string, string | null, 'out' | 'in' | null, boolean]> = [
    ['what does the checkout service depend on?', 'DEPENDS_ON', 'out', false],
    ['What does "Mobile app onboarding redesign" ultimately depend on?', 'DEPENDS_ON', 'out', true],
    ['what does redis rely on', 'DEPENDS_ON', 'out', false],
    ['which services depend on the auth gateway?', 'DEPENDS_ON', 'in', false],
    ['what depends on Kafka?', 'DEPENDS_ON', 'in', false],
    ['what else relies on the billing database', 'DEPENDS_ON', 'in', false],
    ['list the dependencies of the search API', 'DEPENDS_ON', 'out', false],
    ['what is the churn report derived from', 'DERIVED_FROM', 'out', false],
    ['what is derived from the raw click log?', 'DERIVED_FROM', 'in', false],
    ['what replaced Jenkins?', 'SUPERSEDES', 'in', false],
    ['which CI system replaced Jenkins?', 'SUPERSEDES', 'in', false],
    ['what is the old rate limit replaced by?', 'SUPERSEDES', 'in', false],
    ['what was replaced by GitHub Actions?', 'SUPERSEDES', 'out', false],
    ['what did ADR-012 supersede?', 'SUPERSEDES', 'out', false],
    ['what implements the storage interface?', 'IMPLEMENTS', 'in', false],
    ['what contradicts the latency claim', 'CONTRADICTS', 'in', false],
    ['where is the root cause of the outage, what does it eventually depend on', 'DEPENDS_ON', 'out', true],
    // One per verb and phrase the patterns know, so a stem missing from the quick pre-check fails here.
    ['what does the build require?', 'DEPENDS_ON', 'out', false],
    ['what does the cache need?', 'DEPENDS_ON', 'out', false],
    ['prerequisites for the migration', 'DEPENDS_ON', 'out', false],
    ['dependents of the auth service', 'DEPENDS_ON', 'in', false],
    ['what is the forecast based on?', 'DERIVED_FROM', 'out', false],
    ['what is the parser built on?', 'DERIVED_FROM', 'out', false],
    ['where does the report come from?', 'DERIVED_FROM', 'out', false],
    ['what does the parser extend?', 'EXTENDS', 'out', false],
    ['what does the RFC cite?', 'REFERENCES', 'out', false],
    ['which papers cited the benchmark?', 'REFERENCES', 'in', false],
    ['what references ADR-007?', 'REFERENCES', 'in', false],
    ['what supports the latency claim?', 'SUPPORTS', 'in', false],
    ['evidence for the outage theory', 'SUPPORTS', 'in', false],
    ['implementations of the storage interface', 'IMPLEMENTS', 'in', false],
    ['WHAT DOES THE CHECKOUT SERVICE DEPEND ON?', 'DEPENDS_ON', 'out', false],
    ['where does agent memory live?', null, null, false],
    ['What did Caroline learn at the support group in Boston?', null, null, false],
    ['how much is the team plan?', null, null, false],
    ['what do I need to bring to the hike?', null, null, false],
    ['what did Melanie support at the charity race', null, null, false],
    // A relation's words inside the quoted subject are the subject's, not the question's.
    ['what is "the service needs a cache" about?', null, null, false],
  ];
  for (const [query, type, direction, farthest] of cases) {
    it(`reads ${JSON.stringify(query)}`, () => {
      const q = readRelationQuestion(query);
      expect(q === null ? null : [q.type, q.direction, q.farthest]).toEqual(type === null ? null : [type, direction, farthest]);
    });
  }

  it('keeps the subject: the query without the relation\'s words, quoted text whole', () => {
    expect(readRelationQuestion('what does the checkout service ultimately depend on?')?.subject).toBe('what does the checkout service on?');
    expect(readRelationQuestion('What does "Launch relies on lease" ultimately depend on?')?.subject).toBe('What does "Launch relies on lease" on?');
  });

  it('reads no relation in a passage longer than a question', () => {
    expect(readRelationQuestion(`what does it depend on ${'is the '.repeat(60)}`)).toBeNull();
    const start = 'what does ' + 'is x '.repeat(20_000);
    expect(readRelationQuestion(start)).toBeNull();
  });
});

describe('relationAnswers', () => {
  const hit = (no: number, distance: number, via: number[], anchorRank = 0): GraphHit => ({ no, distance, via, anchorRank, weight: 1, edges: [], score: 1 / (1 + distance) });
  // 1 → 2 → 4, 1 → 3 (a leaf at distance 1); 9 reached from the second anchor.
  const hits = [hit(2, 1, [1]), hit(3, 1, [1]), hit(4, 2, [1, 2]), hit(9, 1, [5], 1)];

  it('keeps the subject\'s answers nearest first for a plain question', () => {
    expect(relationAnswers(hits, { type: 'DEPENDS_ON', direction: 'out', farthest: false, subject: '' }).map((h) => h.no)).toEqual([2, 3, 4]);
  });

  it('puts the ends of the relation first, farthest first, for "ultimately"', () => {
    expect(relationAnswers(hits, { type: 'DEPENDS_ON', direction: 'out', farthest: true, subject: '' }).map((h) => h.no)).toEqual([4, 3, 2]);
  });

  it('takes the next anchor as the subject when the strongest has no such edge', () => {
    expect(relationAnswers([hit(9, 1, [5], 1), hit(8, 2, [5, 9], 1), hit(7, 1, [6], 2)], { type: 'DEPENDS_ON', direction: 'out', farthest: true, subject: '' }).map((h) => h.no)).toEqual([8, 9]);
  });
});

describe('recall answers relation questions', () => {
  let mem: HybridMemory;
  afterEach(async () => mem?.close());

  const chain = ['Quarterly investor update deck', 'Churn analysis for enterprise accounts', 'Salesforce opportunity export job', 'Nightly ETL cron on the warehouse VM'];
  async function open() {
    mem = await openMemory();
    await mem.storeMany([
      ...chain.map((text, i) => ({ id: `c${i}`, text })),
      { id: 'side', text: 'Investor relations mailing list' },
      { id: 'user', text: 'The board meeting uses the quarterly investor update deck' },
      ...Array.from({ length: 15 }, (_, i) => ({ id: `x${i}`, text: `Quarterly deck draft ${i} for the investor update` })),
    ]);
    await mem.relateMany([
      ...chain.slice(1).map((_, i) => ({ from: `c${i}`, to: `c${i + 1}`, type: 'DEPENDS_ON' })),
      { from: 'user', to: 'c0', type: 'DEPENDS_ON' },
      { from: 'c0', to: 'side', type: 'RELATES_TO' },
    ]);
    await mem.ready();
  }

  it('puts the far end of the chain first for "ultimately", explained by its path', async () => {
    await open();
    const hits = await mem.recall('what does the quarterly investor update deck ultimately depend on?');
    expect(ids(hits).slice(0, 3)).toEqual(['c3', 'c2', 'c1']);
    expect(hits[0]!.legs.graph).toEqual({ rank: 1, distance: 3, via: ['c0', 'c1', 'c2'], relation: 'DEPENDS_ON' });
    expect(hits[0]!.score).toBeGreaterThan(hits[3]!.score);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  it('puts the direct dependency first for a plain question, and follows the relation backwards for "what depends on"', async () => {
    await open();
    expect(ids(await mem.recall('what does the quarterly investor update deck depend on?'))[0]).toBe('c1');
    expect(ids(await mem.recall('what depends on the quarterly investor update deck?'))[0]).toBe('user');
  });

  it('answers from the graph leg alone too', async () => {
    await open();
    expect(ids(await mem.recall('what does the quarterly investor update deck ultimately depend on?', { mode: 'graph' }))[0]).toBe('c3');
  });

  it('changes nothing when switched off, when the store has no such edges, or when the caller restricts the walk to other types', async () => {
    await open();
    const query = 'what does the quarterly investor update deck ultimately depend on?';
    const off = await mem.recall(query, { relationQuestions: false });
    expect(off[0]!.id).toBe('c0');
    expect(off.every((h) => h.legs.graph?.relation === undefined)).toBe(true);
    const implementsQuestion = 'what implements the quarterly investor update deck?';
    expect(await mem.recall(implementsQuestion)).toEqual(await mem.recall(implementsQuestion, { relationQuestions: false }));
    expect(await mem.recall(query, { edgeTypes: ['RELATES_TO'] })).toEqual(await mem.recall(query, { edgeTypes: ['RELATES_TO'], relationQuestions: false }));
  });

  it('refuses a relationQuestions that is not a boolean, naming the method and value', async () => {
    await open();
    await expect(mem.recall('x', { relationQuestions: 'yes' as unknown as boolean })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/recall.*relationQuestions.*yes/s) });
  });
});
