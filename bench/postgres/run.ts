import { mkdir, writeFile } from 'node:fs/promises';
import type { Embedder } from '../../src/index.js';
import { startCluster } from '../../test/postgres/cluster.js';
import { loadHotpot, loadLocomo, loadSciFact } from '../lib/datasets.js';
import { machineInfo } from '../lib/machine.js';
import { runPostgresQuality, type PgDataset, type PgQualityResult } from './quality.js';
import { renderPostgres } from './report.js';
import { runPostgresSpeed, type PgSpeedSize } from './speed.js';

export interface PgBenchOptions {
  quality: boolean;
  speed: boolean;
  smoke: boolean;
  embedder: () => Promise<Embedder | null>;
  data: { scifact: string; hotpot: string; locomo: string };
  sizes: number[];
  queries: number;
  seconds: number;
  out: string;
  log: (s: string) => void;
}

export interface PgBenchResults {
  createdAt: string;
  smoke: boolean;
  machine: Awaited<ReturnType<typeof machineInfo>>;
  settings: { sizes: number[]; queries: number; seconds: number };
  quality?: PgQualityResult;
  speed?: PgSpeedSize[];
}

/**
 * `npm run bench -- --part postgres` (same answers: recall@10 per leg, embedded vs Postgres) and
 * `--part postgres-speed` (ingest, hybrid latency, 32 concurrent clients), on a throwaway
 * cluster started for the run and stopped after it. Written to bench/results/<out>.json and .md.
 */
export async function runPostgresBench(o: PgBenchOptions): Promise<void> {
  const cluster = startCluster();
  const results: PgBenchResults = { createdAt: new Date().toISOString(), smoke: o.smoke, machine: await machineInfo(), settings: { sizes: o.sizes, queries: o.queries, seconds: o.seconds } };
  try {
    if (o.quality) {
      const embedder = await o.embedder();
      if (!embedder) throw new Error('the postgres quality part needs the model: run `npm run model:fetch`');
      const scifact = await loadSciFact(o.data.scifact);
      const datasets: PgDataset[] = [
        { name: 'SciFact', sets: [o.smoke ? { ...scifact, docs: scifact.docs.slice(0, 300) } : scifact] },
        { name: 'HotpotQA-100', sets: [await loadHotpot(o.data.hotpot)] },
        // The quality benchmark's LoCoMo: turns carry their session and place, which the entity graph links.
        { name: 'LoCoMo-dev', sets: (await loadLocomo(o.data.locomo)).parts },
      ];
      results.quality = await runPostgresQuality({ connection: cluster.connection, schema: cluster.schema, embedder, datasets, log: o.log, ...(o.smoke ? { limit: 10 } : {}) });
    }
    if (o.speed) results.speed = await runPostgresSpeed({ connection: cluster.connection, schema: cluster.schema, sizes: o.sizes, queries: o.queries, seconds: o.seconds, log: o.log });
  } finally {
    cluster.stop();
  }
  const dir = new URL('../results/', import.meta.url);
  await mkdir(dir, { recursive: true });
  await writeFile(new URL(`${o.out}.json`, dir), JSON.stringify(results, null, 2));
  await writeFile(new URL(`${o.out}.md`, dir), renderPostgres(results));
  o.log(`wrote bench/results/${o.out}.json and ${o.out}.md`);
}
