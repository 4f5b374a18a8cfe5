/**
 * The browser report's cold-open figures: each is the median of its own samples, and the target
 * row compares that median with the same run's ingest.
 */
import { describe, expect, it } from 'vitest';
import { medians, renderBrowser, type BrowserAnn, type BrowserReport, type BrowserSize, type ColdOpenSample } from '../bench/browser/report.js';
import { nodeFigures } from '../bench/browser/run.js';
import { summarize } from '../bench/lib/stats.js';
import type { SpeedReport } from '../bench/speed/report.js';

const sample = (totalMs: number, connectMs: number): ColdOpenSample => ({ connectMs, firstAnswerMs: totalMs - connectMs, totalMs, statsMs: 20, reloadToAnswerMs: totalMs + 100, memories: 100_000 });

function size(n: number, ingestMs: number, samples: ColdOpenSample[], ann?: BrowserAnn): BrowserSize {
  const unmeasured = { error: 'not measured here' };
  const rss = { bytes: 0, all: [] };
  return {
    n,
    ...(ann ? { ann } : {}),
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

  const report = (sizes: BrowserSize[]): BrowserReport => ({
      createdAt: '2026-12-05T00:00:00.000Z',
      commit: '0123456789abcdef',
      machine: { cpu: 'cpu', cores: 2, memoryGiB: 24, platform: 'linux', node: 'v20', versions: {} },
      chromium: null,
      settings: { sizes: [10_000, 100_000], queries: 200, dim: 384, page: 'page', open: {}, ingest: 'ingest', recall: {}, coldOpen: 'cold', memory: 'memory' },
      load: { start: 0, end: 0 },
      sizes,
  });
  const targetRows = (r: BrowserReport) => renderBrowser(r).split('\n').filter((line) => /^\| [\d,]+ \| [^|]+ \| [\d.]+ \| [\d.]+ \| [\d.]+× \|/.test(line));

  it('meets the cold-open target on the median, against the same run ingest, and lists every sample', () => {
    expect(targetRows(report([size(10_000, 500, [sample(180, 150)]), size(100_000, 5000, [sample(240, 200), sample(900, 850), sample(245, 210)])]))).toEqual([
      '| 10,000 | exact scan (`ann: false`) | 180 | 500 | 0.360× | **no** | 180 |',
      '| 100,000 | exact scan (`ann: false`) | 245 | 5000 | 0.049× | yes | 240, 900, 245 |',
    ]);
  });

  it('keeps the default configuration (HNSW) apart: its own target row, its HNSW notes, the Node system of the same configuration', () => {
    const restored = (totalMs: number, afterMs: number): ColdOpenSample => ({ ...sample(totalMs, totalMs - 40), ann: { afterMs, message: 'ann: HNSW restored from saved bytes in 300.0 ms' } });
    const withHnsw = { ...size(100_000, 6000, [restored(320, 700), restored(330, 720), restored(310, 690)], 'default'), annBuiltS: 61.5 };
    const text = renderBrowser(report([size(100_000, 5000, [sample(250, 200)], 'exact'), withHnsw]));
    expect(targetRows(report([withHnsw]))).toEqual(['| 100,000 | default (HNSW past 20,000) | 320 | 6000 | 0.053× | **no** | 320, 330, 310 |']);
    expect(text).toContain('- n=100,000: built 61.5 s after ingest');
    expect(text).toContain('  - cold open 2: first answer at 330 ms; 720 ms: ann: HNSW restored from saved bytes in 300.0 ms');

    const figures = (ingestPerSec: number) => ({ ingestPerSec, coldOpenMs: 100, memory: { rss: 1, rssOverBaseline: 1, heapUsed: 1, external: 1 }, load: [0, 0] });
    const speed = {
      createdAt: 'then', commit: 'abc',
      sizes: [{
        n: 100_000,
        systems: [{ name: 'hybridmind', ...figures(1000) }, { name: 'hybridmind (default ann)', ...figures(2000) }],
        modes: [{ name: 'hybridmind hybrid (4 legs)', latency: { median: 5, p95: 7 } }, { name: 'hybridmind hybrid (4 legs), HNSW', latency: { median: 2, p95: 3 } }],
      }],
    } as unknown as SpeedReport;
    expect(nodeFigures(speed, 100_000, 'default')).toMatchObject({ ingestPerSec: 2000, hybrid: { median: 2, p95: 3 } });
    expect(nodeFigures(speed, 100_000)).toMatchObject({ ingestPerSec: 1000, hybrid: { median: 5, p95: 7 } });
  });
});
