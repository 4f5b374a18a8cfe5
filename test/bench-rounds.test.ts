/**
 * How the speed benchmark merges a system's rounds (separate processes): the report's ratios rest
 * on it, so it is checked here rather than trusted to a run.
 */
import { describe, expect, it } from 'vitest';
import type { ChildResult } from '../bench/speed/child.js';
import { pooled, rssOverBaseline } from '../bench/speed/run-speed.js';

function round(rss: number, latencyMs: number[], extra: Partial<ChildResult> = {}): ChildResult {
  return {
    system: 's',
    config: {},
    buildMs: rss / 10,
    readyMs: null,
    memory: { rss, heapUsed: rss / 2, external: rss / 4, arrayBuffers: 0 },
    memoryAfterBuild: { rss: rss + 40, heapUsed: rss, external: rss / 4, arrayBuffers: 1 },
    persistedBytes: null,
    coldOpenMs: rss * 2,
    modes: [{ name: 'hybrid', kind: 'hybrid', latencyMs, warmupLatencyMs: latencyMs.map((l) => 10 * l), ids: latencyMs.map((_, i) => [`first-${i}`]) }],
    notes: ['a'],
    ...extra,
  };
}

describe('pooled rounds', () => {
  it('keeps every latency, the first round\'s ids, and the medians of the rest', () => {
    const merged = pooled([round(300, [1, 2]), round(100, [3, 4], { notes: ['a', 'b'] }), round(200, [5, 6])]);
    expect(merged.modes[0]!.latencyMs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(merged.modes[0]!.warmupLatencyMs).toEqual([10, 20, 30, 40, 50, 60]);
    expect(merged.modes[0]!.ids).toEqual([['first-0'], ['first-1']]);
    expect(merged.memory).toEqual({ rss: 200, heapUsed: 100, external: 50, arrayBuffers: 0 });
    expect(merged.memoryAfterBuild).toEqual({ rss: 240, heapUsed: 200, external: 50, arrayBuffers: 1 });
    expect([merged.buildMs, merged.coldOpenMs, merged.readyMs]).toEqual([20, 400, null]);
    expect(merged.notes).toEqual(['a', 'b']);
  });

  it('is the round itself when there is one', () => {
    const only = round(100, [1]);
    expect(pooled([only])).toBe(only);
  });

  it('takes the RSS over the baseline round by round, so a baseline that moves cannot put a system below it', () => {
    // Medians first: 200 - 150 = 50; round by round: 150, 10, -50, median 10.
    const rss = (values: number[]) => values.map((v) => round(v, []).memory);
    expect(rssOverBaseline(rss([300, 100, 200]), rss([150, 90, 250]))).toBe(10);
    // Medians first: 161 - 176 = -15, below the baseline; round by round: -15, 11, 36, median 11.
    expect(rssOverBaseline(rss([161, 161, 217]), rss([176, 150, 181]))).toBe(11);
  });
});
