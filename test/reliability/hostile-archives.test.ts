/**
 * The hostile-archive generator: several hundred `.mind.zip` archives generated here from seeded
 * fast-check parameters, in the classes issue 12 found (bombs inside the limits, data outside the
 * entries, database rows the API would refuse) and their neighbours. Every archive must be refused
 * with the expected code by the check meant for it, by `restoreSnapshot` and `importSnapshot`
 * alike (row classes also by the Durable Object import path), leaving the live store
 * byte-identical. Times are recorded in the output, not asserted (they depend on the machine);
 * what bounds time and memory is asserted structurally in `readArchive`'s contract: nothing is
 * inflated past its declared size, and store.db stops at its header when the header is wrong.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { importSnapshotInto } from '../../src/edge/import-snapshot.js';
import { HybridMemory, type ErrorCode, type SnapshotLimits } from '../../src/index.js';
import { sha256Hex } from '../../src/snapshot/sha256.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';
import { refusal } from '../support/errors.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { clone, entriesOf, repack, unpack, withStoreDb, writeZip, type Unpacked } from '../snapshot/support/archive.js';
import { makeBomb } from '../snapshot/support/bomb.js';

const SEED = 12_2026;
const DIM = 16;
const embedder = new HashEmbedder(DIM);

interface Case {
  cls: string;
  name: string;
  bytes: Uint8Array;
  code: ErrorCode;
  reason: RegExp;
  limits?: SnapshotLimits;
  /** Also refused by `importSnapshotInto` (the Durable Object path) for the same reason. */
  edge?: boolean;
}

const sample = <T>(arb: fc.Arbitrary<T>, n: number, offset: number): T[] => fc.sample(arb, { seed: SEED + offset, numRuns: n });

// ---- the valid material ----
const source = await HybridMemory.open({ embedder });
await source.storeMany(['ADR-007: SQLite-WASM on OPFS', 'ADR-008 supersedes ADR-007', 'Order #4821 shipped', 'The build uses vite', 'quokka sightings', 'café notes: 東京'].map((text, i) => ({ id: `m${i + 1}`, text, kind: 'note' })));
await source.relate('m2', 'm1', 'SUPERSEDES');
await source.relate('m3', 'm5', 'RELATES_TO');
await source.relate('m4', 'm2', 'DEPENDS_ON');
await source.ready();
const base = await source.exportSnapshot();
await source.close();
const good = unpack(base);
const db = good.parts.get('store.db')!;
const PAGE = new DataView(db.buffer, db.byteOffset).getUint16(16);

/** Inserts `junk` at byte `at` of a ZIP, moving every offset at or after it, so the directory still finds its entries. */
function insertJunk(zip: Uint8Array, at: number, junk: Uint8Array): Uint8Array {
  const out = new Uint8Array(zip.length + junk.length);
  out.set(zip.subarray(0, at));
  out.set(junk, at);
  out.set(zip.subarray(at), at + junk.length);
  const view = new DataView(out.buffer);
  const eocd = out.length - 22;
  const shift = (pos: number) => {
    const value = view.getUint32(pos, true);
    if (value >= at) view.setUint32(pos, value + junk.length, true);
  };
  let record = view.getUint32(eocd + 16, true) + (view.getUint32(eocd + 16, true) >= at ? junk.length : 0);
  for (let i = 0; i < view.getUint16(eocd + 10, true); i++) {
    shift(record + 42);
    record += 46 + view.getUint16(record + 28, true) + view.getUint16(record + 30, true) + view.getUint16(record + 32, true);
  }
  shift(eocd + 16);
  return out;
}

/** Where each entry's local header starts in the writer's ZIP. */
function entryStarts(zip: Uint8Array): number[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const eocd = zip.length - 22;
  const starts: number[] = [];
  let record = view.getUint32(eocd + 16, true);
  for (let i = 0; i < view.getUint16(eocd + 10, true); i++) {
    starts.push(view.getUint32(record + 42, true));
    record += 46 + view.getUint16(record + 28, true) + view.getUint16(record + 30, true) + view.getUint16(record + 32, true);
  }
  return starts;
}

const withDb = (bytes: Uint8Array): Unpacked => {
  const c = clone(good);
  c.parts.set('store.db', bytes);
  return c;
};

/** store.db with `pages` filler pages appended; with `fixHeader` the header's page count agrees. */
function padded(pages: number, fill: number, fixHeader: boolean): Uint8Array {
  const out = new Uint8Array(db.length + pages * PAGE).fill(fill, db.length);
  out.set(db);
  if (fixHeader) {
    const view = new DataView(out.buffer);
    view.setUint32(28, out.length / view.getUint16(16));
    view.setUint32(92, view.getUint32(24));
  }
  return out;
}

const corpus: Case[] = [];
const repacked = writeZip(await entriesOf(good));
const rowRe = /store\.db (memory row|edge row|vector of memory|the recorded vector dimension)/;

// Data outside the entries: junk before the first entry (a polyglot or a self-extractor's stub), between entries, after the directory.
for (const [n, fill] of sample(fc.tuple(fc.integer({ min: 1, max: 65_536 }), fc.integer({ min: 0, max: 255 })), 40, 1)) {
  corpus.push({ cls: 'junk', name: `${n} bytes of 0x${fill.toString(16)} before the ZIP`, bytes: insertJunk(repacked, 0, new Uint8Array(n).fill(fill)), code: 'CORRUPT', reason: /belong to no entry/ });
}
const starts = entryStarts(repacked);
for (const [i, n] of sample(fc.tuple(fc.integer({ min: 1, max: starts.length - 1 }), fc.integer({ min: 1, max: 4096 })), 25, 2)) {
  corpus.push({ cls: 'junk', name: `${n} bytes between entries ${i - 1} and ${i}`, bytes: insertJunk(repacked, starts[i]!, new Uint8Array(n).fill(0x41)), code: 'CORRUPT', reason: /belong to no entry/ });
}
for (const n of sample(fc.integer({ min: 1, max: 2048 }), 15, 3)) {
  const out = new Uint8Array(repacked.length + n).fill(0x42, repacked.length);
  out.set(repacked);
  corpus.push({ cls: 'junk', name: `${n} bytes after the directory`, bytes: out, code: 'CORRUPT', reason: /not a ZIP archive/ });
}

// Bombs inside the limits: store.db padded far past its real pages, garbage with a valid size, ratio bombs, size lies.
for (const [pages, fill] of sample(fc.tuple(fc.integer({ min: 1, max: 1024 }), fc.constantFrom(0, 1, 0x55)), 30, 4)) {
  corpus.push({ cls: 'bomb', name: `store.db padded with ${pages} pages of 0x${fill.toString(16)}`, bytes: await repack(withDb(padded(pages, fill, false))), code: 'CORRUPT', reason: /declares \d+ pages in its header/, limits: { maxRatio: 1e9 } });
}
for (const pages of sample(fc.integer({ min: 1, max: 256 }), 15, 5)) {
  corpus.push({ cls: 'bomb', name: `store.db padded with ${pages} pages, header made to agree`, bytes: await repack(withDb(padded(pages, 0, true))), code: 'CORRUPT', reason: /integrity_check/, limits: { maxRatio: 1e9 } });
}
for (const [pages, fill] of sample(fc.tuple(fc.integer({ min: 1, max: 1024 }), fc.integer({ min: 0, max: 255 })), 20, 6)) {
  corpus.push({ cls: 'bomb', name: `store.db is ${pages} pages of 0x${fill.toString(16)}`, bytes: await repack(withDb(new Uint8Array(pages * PAGE).fill(fill))), code: 'CORRUPT', reason: /not a SQLite database|too short/, limits: { maxRatio: 1e9 } });
}
const baseEntries = await entriesOf(good);
for (const [part, mib] of sample(fc.tuple(fc.constantFrom('store.db', 'vectors.ids.json', 'graph.jsonl', 'bm25.jsonl'), fc.integer({ min: 2, max: 6 })), 20, 7)) {
  const entries = baseEntries.map((e) => (e.name === part ? { ...e, data: new Uint8Array(mib * 1024 * 1024) } : e));
  corpus.push({ cls: 'bomb', name: `${part} is ${mib} MiB of zeros`, bytes: writeZip(entries), code: 'CORRUPT', reason: /ratio/ });
}
for (const [part, declared, mib] of sample(fc.tuple(fc.constantFrom('vectors.ids.json', 'graph.jsonl', 'bm25.jsonl'), fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 1, max: 4 })), 20, 8)) {
  // The manifest agrees with the lie, so only the inflater's cap can notice.
  const lie = clone(good);
  for (const p of lie.manifest['parts'] as Array<{ name: string; bytes: number }>) if (p.name === part) p.bytes = declared;
  const entries = (await entriesOf(lie, { fixChecksums: false })).map((e) => (e.name === part ? { ...e, data: new Uint8Array(mib * 1024 * 1024), declaredSize: declared } : e));
  corpus.push({ cls: 'bomb', name: `${part} declares ${declared} bytes, inflates ${mib} MiB`, bytes: writeZip(entries), code: 'CORRUPT', reason: /past its declared/, limits: { maxRatio: 1e9 } });
}
for (const extra of sample(fc.integer({ min: 1, max: 100_000 }), 15, 9)) {
  const lie = clone(good);
  lie.manifest['counts'].vectors = Math.max(0, good.manifest['counts'].vectors - 1 - (extra % 3));
  corpus.push({ cls: 'bomb', name: `vectors.f32 larger than ${lie.manifest['counts'].vectors} vectors need`, bytes: await repack(lie), code: 'CORRUPT', reason: /vectors\.f32 declares \d+ bytes/ });
}

// Bombs whose store.db header agrees with the padded size and whose SHA-256 is right, so neither
// the header nor the checksum can stop them: only the ratio (declared, then running) and the
// integrity check after a full inflate within `maxTotalBytes`. The README reports their times.
const MiB = 1024 * 1024;
{
  const bomb = makeBomb({ entries: baseEntries, storeDbBytes: 900 * MiB, ratio: 161 });
  corpus.push({ cls: 'ratio bomb', name: `issue 12's bomb: ${(bomb.zip.length / MiB).toFixed(1)} MiB archive, store.db 900 MiB (declared ratio ${bomb.declaredRatio.toFixed(0)})`, bytes: bomb.zip, code: 'CORRUPT', reason: /"store\.db" would inflate \d+ bytes to \d+, a ratio over 100 \(limits\.maxRatio\)/ });
}
for (const [mib, seed] of sample(fc.tuple(fc.integer({ min: 64, max: 512 }), fc.nat()), 4, 13)) {
  // Dense filler first, then enough incompressible filler that the declared ratio is under the limit.
  const tail = Math.ceil((mib * MiB) / 90 / PAGE) * PAGE;
  const bomb = makeBomb({ entries: baseEntries, storeDbBytes: mib * MiB, ratio: 1000, tailBytes: tail, seed });
  corpus.push({ cls: 'ratio bomb', name: `front-loaded: store.db ${mib} MiB, declared ratio ${bomb.declaredRatio.toFixed(0)}`, bytes: bomb.zip, code: 'CORRUPT', reason: /"store\.db" inflated \d+ bytes from its first \d+ compressed bytes, a ratio of [\d.]+ over the limit of 100/ });
}
for (const [mib, seed] of sample(fc.tuple(fc.integer({ min: 8, max: 32 }), fc.nat()), 2, 14)) {
  // At the ratio limit and the size limit at once: inflated whole, refused by SQLite (scaled down from 1 GiB to keep the suite fast).
  const bomb = makeBomb({ entries: baseEntries, storeDbBytes: mib * MiB, ratio: 99, seed });
  corpus.push({ cls: 'ratio bomb', name: `just under the ratio: store.db ${mib} MiB, declared ratio ${bomb.declaredRatio.toFixed(1)}, limit ${mib + 1} MiB`, bytes: bomb.zip, code: 'CORRUPT', reason: /integrity_check/, limits: { maxTotalBytes: (mib + 1) * MiB } });
}

// Rows the API would refuse, in an otherwise valid store.db.
const MEMORY_TAMPERS: Array<[string, (no: number) => string]> = [
  ['id with surrounding spaces', (no) => `UPDATE memories SET id = ' ' || id || ' ' WHERE no = ${no}`],
  ['empty id', (no) => `UPDATE memories SET id = '' WHERE no = ${no}`],
  ['id of 600 characters', (no) => `UPDATE memories SET id = printf('%.*c', 600, 'i') WHERE no = ${no}`],
  ['empty text', (no) => `UPDATE memories SET text = '' WHERE no = ${no}`],
  ['blank text', (no) => `UPDATE memories SET text = '   ' WHERE no = ${no}`],
  ['text over 1,000,000 characters', (no) => `UPDATE memories SET text = printf('%.*c', 1000001, 't') WHERE no = ${no}`],
  ['text not a string', (no) => `UPDATE memories SET text = 42 WHERE no = ${no}`],
  ['valid_from 9e15', (no) => `UPDATE memories SET valid_from = 9000000000000000 WHERE no = ${no}`],
  ['valid_to before valid_from', (no) => `UPDATE memories SET valid_to = valid_from - 1 WHERE no = ${no}`],
  ['valid_to equal to valid_from', (no) => `UPDATE memories SET valid_to = valid_from WHERE no = ${no}`],
  ['created_at a fraction', (no) => `UPDATE memories SET created_at = 1.5 WHERE no = ${no}`],
  ['created_at text', (no) => `UPDATE memories SET created_at = 'yesterday' WHERE no = ${no}`],
  ['kind empty', (no) => `UPDATE memories SET kind = '' WHERE no = ${no}`],
  ['kind of 10,000 characters', (no) => `UPDATE memories SET kind = printf('%.*c', 10000, 'k') WHERE no = ${no}`],
  ['domain empty', (no) => `UPDATE memories SET domain = '' WHERE no = ${no}`],
  ['metadata an array', (no) => `UPDATE memories SET metadata = '[]' WHERE no = ${no}`],
  ['metadata not JSON', (no) => `UPDATE memories SET metadata = 'not json' WHERE no = ${no}`],
  ['metadata with a lone surrogate', (no) => `UPDATE memories SET metadata = '{"a":"\\ud800"}' WHERE no = ${no}`],
  ['vector blob of 7 bytes', (no) => `UPDATE vectors SET vector = zeroblob(7) WHERE no = ${no}`],
  ['vector blob one float long', (no) => `UPDATE vectors SET vector = zeroblob(${DIM * 4 + 4}) WHERE no = ${no}`],
];
const EDGE_TAMPERS: Array<[string, (no: number) => string]> = [
  ['edge type "bad type!"', (no) => `UPDATE edges SET type = 'bad type!' WHERE no = ${no}`],
  ['self-edge', (no) => `UPDATE edges SET dst = src WHERE no = ${no}`],
  ['edge weight 0', (no) => `UPDATE edges SET weight = 0 WHERE no = ${no}`],
  ['edge weight negative', (no) => `UPDATE edges SET weight = -1 WHERE no = ${no}`],
  ['edge closes_valid_to 2', (no) => `UPDATE edges SET closes_valid_to = 2 WHERE no = ${no}`],
  ['edge id with spaces', (no) => `UPDATE edges SET id = ' x ' WHERE no = ${no}`],
  ['edge valid_from 9e15', (no) => `UPDATE edges SET valid_from = 9000000000000000 WHERE no = ${no}`],
  ['edge metadata not an object', (no) => `UPDATE edges SET metadata = '1' WHERE no = ${no}`],
];
for (const [t, no] of sample(fc.tuple(fc.nat({ max: MEMORY_TAMPERS.length - 1 }), fc.integer({ min: 1, max: 6 })), 80, 10)) {
  const [what, sql] = MEMORY_TAMPERS[t]!;
  corpus.push({ cls: 'rows', name: `${what} (memory ${no})`, bytes: await repack(await withStoreDb(good, [sql(no)])), code: 'CORRUPT', reason: rowRe, edge: true, limits: { maxRatio: 1e9 } });
}
for (const [t, no] of sample(fc.tuple(fc.nat({ max: EDGE_TAMPERS.length - 1 }), fc.integer({ min: 1, max: 3 })), 30, 11)) {
  const [what, sql] = EDGE_TAMPERS[t]!;
  corpus.push({ cls: 'rows', name: `${what} (edge ${no})`, bytes: await repack(await withStoreDb(good, [sql(no)])), code: 'CORRUPT', reason: rowRe, edge: true, limits: { maxRatio: 1e9 } });
}
for (const dim of sample(fc.constantFrom("'0'", "'70000'", "'1.5'"), 6, 12)) {
  corpus.push({ cls: 'rows', name: `meta dim ${dim}`, bytes: await repack(await withStoreDb(good, [`UPDATE meta SET value = ${dim} WHERE key = 'dim'`])), code: 'CORRUPT', reason: /store\.db/, edge: true });
}

// ---- the proof ----
const live = await HybridMemory.open({ embedder, now: () => 1_800_000_000_000 });
await live.storeMany([{ id: 'live-1', text: 'the live store must not change' }, { id: 'live-2', text: 'whatever it is fed' }]);
await live.relate('live-2', 'live-1', 'SUPERSEDES');
await live.ready();
const before = await sha256Hex('test', await live.exportDatabase());
const times = new Map<string, number[]>();
let slowest = { name: '', ms: 0 };
afterAll(async () => {
  await live.close();
  const summary = [...times].map(([cls, ms]) => `${cls}: ${ms.length} archives, median ${ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]!.toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`);
  console.info(`hostile archives, seed ${SEED}: ${corpus.length} tried, each by restoreSnapshot and importSnapshot (restoreSnapshot's time)\n${summary.join('\n')}\nslowest: ${slowest.name} (${slowest.ms.toFixed(1)} ms)`);
});

describe('the generated corpus', () => {
  it('holds at least 300 archives, and the material it is cut from is valid', async () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    for (const bytes of [base, repacked]) {
      const mem = await HybridMemory.importSnapshot(bytes, { embedder });
      expect((await mem.stats()).memories).toBe(6);
      await mem.close();
    }
  });
});

describe.each([...new Set(corpus.map((c) => c.cls))])('%s archives', (cls) => {
  it.each(corpus.filter((c) => c.cls === cls).map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const options = c.limits ? { limits: c.limits } : {};
    const started = performance.now();
    const restored = await refusal(() => live.restoreSnapshot(c.bytes, options));
    const list = times.get(cls) ?? [];
    const ms = performance.now() - started;
    list.push(ms);
    if (ms > slowest.ms) slowest = { name: `${cls}: ${c.name}`, ms };
    times.set(cls, list);
    expect(restored.code, restored.message).toBe(c.code);
    expect(restored.message).toMatch(c.reason);
    expect(await sha256Hex('test', await live.exportDatabase())).toBe(before);
    const imported = await refusal(() => HybridMemory.importSnapshot(c.bytes, { embedder, ...options }));
    expect(imported.code, imported.message).toBe(c.code);
    expect(imported.message).toMatch(c.reason);
    if (c.edge) {
      const target = await SqliteWasmDriver.open();
      try {
        const viaEdge = await refusal(() => importSnapshotInto(target, c.bytes, { embedder, ...options }));
        expect(viaEdge.code, viaEdge.message).toBe(c.code);
        expect(viaEdge.message).toMatch(c.reason);
      } finally {
        target.close();
      }
    }
  });
});
