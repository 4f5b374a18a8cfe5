import { describe, expect, it } from 'vitest';
import { extractEntities } from '../src/legs/graph/entities.js';
import { EntityIndex } from '../src/legs/graph/entity-index.js';
import { convexFusion, minMaxRange, minMaxScore } from '../src/fusion/score-fusion.js';

describe('extractEntities', () => {
  it('reads words the same whether their first and last characters are ASCII or not', () => {
    // Possessives with either apostrophe, trailing `.'-`, capitals and digits outside ASCII.
    expect(extractEntities("We met Buddy's coach and Buddy’s agent at Kings. Then Émile Zola and émile met Ōsaka Trading."))
      .toEqual(['buddy', 'kings', 'then émile zola', 'émile zola', 'ōsaka trading']);
    expect(extractEntities("The team of O'Neil- signed with Real Madrid'. ٣ Lions won; Straße Nord ran. Mr. Smith's Café Noir."))
      .toEqual(["o'neil", 'real madrid', '٣ lions', 'lions', 'straße nord', 'nord', 'mr', 'smith café noir', 'café noir']);
    expect(extractEntities("Apple's iPhone 15 beat Nokia’s 3310- in the U.S. market's share. ÆON Labs and Ça Va Corp's plan."))
      .toEqual(['apple', 'nokia 3310', 'u.s', 'æon labs and ça va corp', 'labs and ça va corp', 'æon labs', 'ça va corp']);
  });

  it('finds capitalised names, their parts around connectors, identifiers and quoted phrases', () => {
    const found = extractEntities('He plays for the Sacramento Kings of the NBA. See ADR-007 and "the blue plan" for Order #4821.');
    expect(found).toEqual(expect.arrayContaining(['sacramento kings of the nba', 'sacramento kings', 'nba', 'adr-007', '#4821', 'the blue plan']));
    expect(found).not.toContain('he');
  });

  it('keeps both readings of a sentence-initial run and ignores "I" and bare numbers', () => {
    const found = extractEntities('Buddy Hield scored 30. Yeah I saw it in 2023.');
    expect(found).toEqual(expect.arrayContaining(['buddy hield', 'hield', 'yeah']));
    expect(found).not.toContain('yeah i');
    expect(found).not.toContain('2023');
  });
});

describe('EntityIndex.walk', () => {
  function index(): EntityIndex {
    const e = new EntityIndex({ minCap: 3 });
    e.add(1, 'The 2015 Diamond Head Classic MVP was Buddy Hield.');
    e.add(2, 'Buddy Hield plays for the Sacramento Kings.');
    e.add(3, 'The Sacramento Kings are a team in California.');
    e.add(4, 'Unrelated note about gardening.');
    return e;
  }

  it('reaches a memory that shares a rare entity with a seed, and nothing unconnected', () => {
    const hits = index().walk([{ no: 1, weight: 1 }], [], { k: 10 });
    expect(hits.map((h) => h.no)).toContain(2);
    expect(hits.map((h) => h.no)).not.toContain(4);
    expect(hits[0]!.no).toBe(1);
  });

  it('passes nothing on from a node whose mass is under the tolerance, and gives the full walk\'s ranking above it', () => {
    const e = index();
    const full = e.walk([{ no: 1, weight: 1 }], [], { k: 10, tolerance: 0 });
    // Memory 3 is two hops away (Hield → 2 → Kings → 3): only the full walk's small mass reaches it.
    expect(full.map((h) => h.no)).toEqual([1, 2, 3]);
    expect(e.walk([{ no: 1, weight: 1 }], [], { k: 10, tolerance: 0.1 }).map((h) => h.no)).toEqual([1, 2]);
    expect(e.walk([{ no: 1, weight: 1 }], [], { k: 10, tolerance: 2 }).map((h) => h.no)).toEqual([1]);
    expect(e.walk([{ no: 1, weight: 1 }], [], { k: 10 }).map((h) => h.no)).toEqual(full.map((h) => h.no));
  });

  it('restarts at entities named in the query', () => {
    const e = index();
    const hits = e.walk([], e.known('Where do the Sacramento Kings play?'), { k: 10 }).map((h) => h.no);
    // Both memories naming the team first; the MVP note only through Buddy Hield, a hop further.
    expect(hits.slice(0, 2).sort()).toEqual([2, 3]);
    expect(hits).not.toContain(4);
  });

  it('links neighbouring turns of one session and forgets removed memories', () => {
    const e = new EntityIndex();
    e.add(10, 'hello there', { session: 's1', turn: 0 });
    e.add(11, 'how are you', { session: 's1', turn: 1 });
    e.add(12, 'fine thanks', { session: 's1', turn: 2 });
    expect(e.walk([{ no: 10, weight: 1 }], [], { k: 10 }).map((h) => h.no)).toEqual([10, 11, 12]);
    e.remove(11);
    expect(e.walk([{ no: 10, weight: 1 }], [], { k: 10 }).map((h) => h.no)).toEqual([10]);
  });

  it('skips entities too many memories share, so they connect nothing', () => {
    const e = new EntityIndex({ maxShare: 0.05, minCap: 2 });
    for (let no = 0; no < 10; no++) e.add(no, `Caroline: note ${no}`);
    expect(e.walk([{ no: 0, weight: 1 }], [], { k: 10 }).map((h) => h.no)).toEqual([0]);
  });
});

describe('convexFusion', () => {
  it('min-max normalises each list and sums weighted scores', () => {
    const { lo, span } = minMaxRange([3, 2, 1]);
    expect([3, 2, 1].map((s) => minMaxScore(s, lo, span))).toEqual([1, 0.5, 0]);
    expect(minMaxRange([2, 2])).toEqual({ lo: 2, span: 0 });
    expect(minMaxScore(2, 2, 0)).toBe(1);
    const fused = convexFusion([
      { weight: 1, nos: [1, 2, 3], scores: [0.9, 0.5, 0.1] },
      { weight: 2, nos: [3, 1], scores: [10, 5] },
    ]);
    expect(fused).toEqual([{ no: 3, score: 2 }, { no: 1, score: 1 }, { no: 2, score: 0.5 }]);
  });

  it('uses bounded scores as they are and scales by confidence', () => {
    const fused = convexFusion([{ weight: 1, nos: [1, 2], scores: [1, 0.5], bounded: true, confidence: [0.5, 1] }]);
    expect(fused).toEqual([{ no: 1, score: 0.5 }, { no: 2, score: 0.5 }]);
  });
});
