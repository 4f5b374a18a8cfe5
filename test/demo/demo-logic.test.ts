import { describe, expect, it } from 'vitest';
import { compareExplanations, explainHit, surfaceWords } from '../../demo/explain-model.js';
import { forceLayout, overlaps, placeLabels } from '../../demo/graph-layout.js';
import { chunkParagraphs, parseChat, parseInput, parseMarkdown } from '../../demo/import-parse.js';
import { ModelProgress } from '../../demo/model-progress.js';
import { tokenize } from '../../src/index.js';
import type { Hit } from '../../src/types.js';

describe('ModelProgress', () => {
  it('aggregates bytes over all files, never goes back, and reaches 100 only when every file is done', () => {
    const p = new ModelProgress();
    const seen: number[] = [];
    const push = (e: Parameters<ModelProgress['update']>[0]) => seen.push(p.update(e).percent);
    push({ status: 'initiate', file: 'config.json' });
    push({ status: 'progress', file: 'config.json', loaded: 600, total: 600 });
    push({ status: 'done', file: 'config.json' });
    // A second, bigger file joins: the raw ratio drops, the bar must not.
    push({ status: 'initiate', file: 'onnx/model_quantized.onnx' });
    push({ status: 'progress', file: 'onnx/model_quantized.onnx', loaded: 1_000, total: 23_000_000 });
    push({ status: 'progress', file: 'onnx/model_quantized.onnx', loaded: 23_000_000, total: 23_000_000 });
    expect(p.view().percent).toBeLessThan(100);
    push({ status: 'done', file: 'onnx/model_quantized.onnx' });
    expect(p.view().percent).toBeLessThan(100);
    push({ status: 'ready' });
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!);
    expect(seen.at(-1)).toBe(100);
    expect(p.view()).toMatchObject({ files: 2, filesDone: 2, loaded: 23_000_600, total: 23_000_600 });
  });

  it('ignores transformers.js progress_total, which restarts whenever a file joins', () => {
    const p = new ModelProgress();
    p.update({ status: 'progress', file: 'a', loaded: 50, total: 100 });
    expect(p.update({ status: 'progress_total', loaded: 100, total: 100 }).percent).toBe(50);
  });
});

describe('surfaceWords', () => {
  it('maps stems and identifier parts back to the words as typed', () => {
    const q = 'Why did tracking stop for order #4821? Memories, agents.';
    const terms = [...new Set([...tokenize('tracking events for order #4821 stopped'), ...tokenize('agent memory')])];
    expect(surfaceWords(q, terms)).toEqual(expect.arrayContaining(['tracking', 'stop', 'order', '#4821', 'Memories', 'agents']));
    expect(surfaceWords(q, ['track', 'memori'])).toEqual(['tracking', 'Memories']);
  });
});

const hit = (id: string, score: number, legs: Hit['legs'], status: Hit['status'] = 'current'): Hit => ({
  id, text: id, score, kind: null, domain: null, metadata: {}, createdAt: 0, validFrom: 0, validTo: null, status, legs,
});
const settings = { weights: { vector: 1, lexical: 1, graph: 1.5, time: 0.1 }, rrfK: 60, historicalWeight: 0.8 };

describe('explainHit', () => {
  it('splits an RRF score into weight / (k + rank) per leg, and names the leg that decided a pair', () => {
    const order = hit('order-4821', 1 / 63 + 1 / 62 + 1.5 / 61, { vector: { rank: 3, score: 0.5 }, lexical: { rank: 2, score: 5, matched: ['order'] }, graph: { rank: 1, distance: 1, via: ['ops-1193'] } });
    const ops = hit('ops-1193', 1 / 61 + 1 / 61 + 1.5 / 64, { vector: { rank: 1, score: 0.7 }, lexical: { rank: 1, score: 9, matched: ['track'] }, graph: { rank: 4, distance: 0, via: [] } });
    const a = explainHit(order, 'q', settings);
    const b = explainHit(ops, 'q', settings);
    expect(a.parts.map((p) => p.contribution)).toEqual([1 / 63, 1 / 62, 1.5 / 61]);
    expect(a.extra).toBe(0);
    const d = compareExplanations(a, order.score, b, ops.score);
    expect(d.decidedBy).toBe('graph');
    expect(d.margin).toBeGreaterThan(0);
  });

  it('attributes what is beyond one vote per leg to the identifier bonus, after undoing the historical factor', () => {
    const legs = 1 / 61;
    const bonus = 1 / 61;
    const h = hit('ops-1201', (legs + bonus) * 0.8, { lexical: { rank: 1, score: 9, matched: ['ops-1201', 'ops', '1201'] } }, 'historical');
    const e = explainHit(h, 'what happened in OPS-1201?', settings);
    expect(e.factor).toBe(0.8);
    expect(e.extra).toBeCloseTo(bonus, 12);
    expect(e.identifiers).toEqual(['OPS-1201']);
  });
});

describe('Markdown and chat import', () => {
  it('splits notes by heading, keeps the heading in the text, drops front matter and fenced pseudo-headings', () => {
    const md = ['---', 'title: x', '---', 'Intro line.', '# Alpha', 'First.', '```', '# not a heading', '```', '## Beta', 'Second.', '# Alpha', 'Again.'].join('\n');
    const m = parseMarkdown(md, 'Team Notes.md');
    expect(m.map((x) => x.id)).toEqual(['team-notes/intro', 'team-notes/alpha', 'team-notes/beta', 'team-notes/alpha-2']);
    expect(m[1]!.text).toContain('# not a heading');
    expect(m[2]).toMatchObject({ text: '## Beta\nSecond.', kind: 'note', domain: 'team-notes', metadata: { heading: 'Beta' } });
  });

  it('cuts a long section at paragraph breaks', () => {
    const para = 'word '.repeat(100).trim();
    const pieces = chunkParagraphs([para, para, para].join('\n\n'), 1500);
    expect(pieces).toHaveLength(2);
    expect(pieces.every((p) => p.length <= 1500)).toBe(true);
  });

  it('reads chat turns from a JSON array, { messages }, conversations and JSONL', () => {
    const turns = [{ role: 'user', content: 'hi there', timestamp: 1_700_000_000 }, { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }, { role: 'user', content: '' }];
    expect(parseChat(JSON.stringify(turns)).map((m) => m.text)).toEqual(['user: hi there', 'assistant: hello']);
    expect(parseChat(JSON.stringify(turns))[0]!.createdAt).toBe(1_700_000_000_000);
    expect(parseChat(JSON.stringify({ title: 'Deploys', messages: turns }))[0]).toMatchObject({ domain: 'deploys', metadata: { conversation: 'Deploys' } });
    expect(parseChat(JSON.stringify([{ title: 'a', messages: turns }, { title: 'b', messages: turns }]))).toHaveLength(4);
    expect(parseChat(turns.map((t) => JSON.stringify(t)).join('\n'), 'x.jsonl')).toHaveLength(2);
    expect(() => parseChat('{"x": 1}\nnot json', 'bad.jsonl')).toThrow(/bad.jsonl/);
    expect(() => parseChat('{"x": 1}', 'none.json')).toThrow(/no chat turns/);
  });

  it('tells a snapshot, chat and notes apart', () => {
    expect(parseInput('x.bin', new Uint8Array([0x50, 0x4b, 3, 4, 0])).type).toBe('snapshot');
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(parseInput('c.jsonl', enc('{"role":"user","content":"a"}'))).toMatchObject({ format: 'chat' });
    expect(parseInput('n.md', enc('# A\nb'))).toMatchObject({ format: 'markdown' });
  });
});

describe('graph layout', () => {
  it('places labels without overlaps, leaving out the ones that cannot fit', () => {
    const wanted = Array.from({ length: 12 }, () => ({ x: 0, y: 0, w: 80, h: 14 }));
    const placed = placeLabels(wanted, [{ x: -10, y: -10, w: 20, h: 20 }]);
    const kept = placed.filter((b) => b !== null);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(12);
    for (let i = 0; i < kept.length; i++) for (let j = i + 1; j < kept.length; j++) expect(overlaps(kept[i]!, kept[j]!)).toBe(false);
  });

  it('is deterministic and keeps the centre fixed', () => {
    const nodes = [{ id: 'c', distance: 0 }, { id: 'a', distance: 1 }, { id: 'b', distance: 1 }, { id: 'd', distance: 2 }];
    const edges = [{ from: 'c', to: 'a' }, { from: 'b', to: 'c' }, { from: 'a', to: 'd' }];
    const one = forceLayout(nodes, edges, 'c');
    expect(forceLayout(nodes, edges, 'c')).toEqual(one);
    expect(one.get('c')).toEqual({ x: 0, y: 0 });
    const a = one.get('a')!;
    const b = one.get('b')!;
    expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThan(60);
  });
});
