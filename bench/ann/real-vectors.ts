import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { defaultLocalModelPath } from '../../src/embedder/local-model.js';
import { TransformersEmbedder } from '../../src/embedder/transformers.js';
import { rng } from '../../test/support/random.js';

const SUBJECTS = ['the billing service', 'order #4821', 'ticket OPS-1193', 'the search index', 'ADR-007', 'the mobile app', 'our CI pipeline', 'the auth gateway', 'the data warehouse', 'customer onboarding', 'the invoice export', 'the staging cluster', 'the recommendation model', 'the payments API', 'the admin dashboard'];
const VERBS = ['depends on', 'was migrated to', 'fails when it meets', 'was rolled back because of', 'now caches', 'should stop calling', 'replaced', 'is blocked by', 'was profiled against', 'duplicates'];
const OBJECTS = ['PostgreSQL 16', 'a Redis cluster', 'the OPFS storage layer', 'a nightly cron job', 'the vendor webhook', 'an expired TLS certificate', 'the feature flag service', 'SQLite-WASM', 'the EU data residency rule', 'a memory leak in the worker', 'rate limits from the CRM', 'the new pricing table', 'a flaky integration test', 'the legacy SOAP endpoint', 'Kafka topic retention'];
const TAILS = ['', ' last Tuesday', ' after the outage', ' according to the postmortem', ' per the architecture review', ' since release 2.3', ' on the customer’s request', ' which surprised the team', ' and nobody noticed for a week', ' until we fix the schema'];

/** Model vectors of generated project-history sentences, cached under bench/results/tmp/. */
export async function realModelVectors(count: number): Promise<Float32Array[]> {
  const file = `bench/results/tmp/minilm-${count}.f32`;
  if (existsSync(file)) {
    const buf = await readFile(file);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    return Array.from({ length: count }, (_, i) => all.slice(i * 384, (i + 1) * 384));
  }
  const next = rng(99);
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
  const texts = Array.from({ length: count }, () => `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}${pick(TAILS)}`);
  const embedder = await TransformersEmbedder.create({ localModelPath: await defaultLocalModelPath(), allowRemoteModels: false, dtype: 'q8' });
  const vectors = await embedder.embed(texts);
  await mkdir('bench/results/tmp', { recursive: true });
  const all = new Float32Array(count * 384);
  vectors.forEach((v, i) => all.set(v, i * 384));
  await writeFile(file, new Uint8Array(all.buffer));
  return vectors;
}
