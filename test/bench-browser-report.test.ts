/**
 * The browser report's cold-open figures: each is the median of its own samples, and the target
 * row compares that median with the same run's ingest.
 */
import { describe, expect, it } from 'vitest';
import { medians, renderBrowser, type BrowserReport, type BrowserSize, type ColdOpenSample } from '../bench/browser/report.js';
import { summarize } from '../bench/lib/stats.js';

const sample = (totalMs: number, connectMs: number): ColdOpenSample => ({ connectMs, firstAnswerMs: totalMs - connectMs, totalMs, statsMs: 20, reloadToAnswerMs: totalMs + 100, memories: 100_000 });

function size(n: number, ingestMs: number, samples: ColdOpenSample[]): BrowserSize {
  const unmeasured = { error: 'not measured here' };
  const rss = { bytes: 0, all: [] };
  return {
    n,
    ingest: { ingestMs, storeMs: ingestMs, relateMs: 0, readyMs: 0, memories: n, perSec: n / (ingestMs / 1000) },
    hybrid: summarize([1, 2, 3]),
    hitsPerQuery: 10,
    coldOpen: { ...medians(samples), emptyOpenMs: 160, samples, emptyOpenSamples: [160] },
    memory: { afterIngest: unmeasured, afterQueries: unmeasured, afterColdOpen: unmeasured },
    renderer: { afterIngest: rss, afterQueries: rss, afterColdOpen: rss },
    load: [0.5, 0.5],
  };
}

describe('the browser report', () => {
  it('takes each cold-open figure as its own median', () => {
    const m = medians([sample(300, 250), sample(240, 200), sample(260, 230), sample(250, 190), sample(900, 850)]);
    expect(m.totalMs).toBe(260);
    expect(m.connectMs).toBe(230);
    expect(m.reloadToAnswerMs).toBe(360);
    expect(m.memories).toBe(100_000);
  });

  it('meets the cold-open target on the median, against the same run ingest, and lists every sample', () => {
    const report: BrowserReport = {
      createdAt: '2026-12-05T00:00:00.000Z',
      commit: '0123456789abcdef',
      machine: { cpu: 'cpu', cores: 2, memoryGiB: 24, platform: 'linux', node: 'v20', versions: {} },
      chromium: null,
      settings: { sizes: [10_000, 100_000], queries: 200, dim: 384, page: 'page', open: {}, ingest: 'ingest', recall: {}, coldOpen: 'cold', memory: 'memory' },
      load: { start: 0, end: 0 },
      sizes: [size(10_000, 500, [sample(180, 150)]), size(100_000, 5000, [sample(240, 200), sample(900, 850), sample(245, 210)])],
    };
    const rows = renderBrowser(report).split('\n').filter((line) => /^\| [\d,]+ \| [\d.]+ \| [\d.]+ \| [\d.]+× \|/.test(line));
    expect(rows).toEqual([
      '| 10,000 | 180 | 500 | 0.360× | **no** | 180 |',
      '| 100,000 | 245 | 5000 | 0.049× | yes | 240, 900, 245 |',
    ]);
  });
});
