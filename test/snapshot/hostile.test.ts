/**
 * A hostile corpus, generated here from a few valid snapshots with seeded randomness: every
 * archive must be refused with the expected code, by the check meant to catch it, and leave a
 * live store byte-identical.
 */
import { deflateSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMemory, type Embedder, type ErrorCode, type SnapshotLimits } from '../../src/index.js';
import { SCHEMA_VERSION } from '../../src/storage/schema.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';
import { sha256Hex } from '../../src/snapshot/sha256.js';
import { refusal } from '../support/errors.js';
import { HashEmbedder, hashVector } from '../support/hash-embedder.js';
import { DAY, NOW } from '../support/memory.js';
import { clone, editDb, entriesOf, prng, repack, unpack, writeZip, type RawEntry, type Unpacked } from './support/archive.js';

interface Case {
  name: string;
  bytes: Uint8Array;
  code: ErrorCode;
  /** The message of the check meant to catch it (not just the part it names). */
  reason: RegExp;
  limits?: SnapshotLimits;
}

const DIM = 16;
const MiB = 1024 * 1024;
const enc = new TextEncoder();
const rand = prng(0x5eed);
const PARTS = ['store.db', 'vectors.ids.json', 'vectors.f32', 'graph.jsonl', 'bm25.jsonl'] as const;
const DEFLATED = ['manifest.json', 'store.db', 'vectors.ids.json', 'graph.jsonl', 'bm25.jsonl'] as const;

async function sourceStore(embedder: Embedder | null, dim?: number): Promise<HybridMemory> {
  const mem = await HybridMemory.open({ embedder, now: () => NOW, ...(dim === undefined ? {} : { dim }) });
  const explicit = (text: string) => (embedder ? {} : { embedding: hashVector(text, dim!) });
  const texts = [
    'ADR-007: we keep SQLite-WASM on OPFS for the store',
    'ADR-008 supersedes ADR-007: move the store to IndexedDB',
    'Order #4821 shipped to Rottnest island by ferry',
    'The build uses vite 8 and vitest 4',
    'quokka sightings near the ferry terminal',
    'naïve café notes: 東京 meeting about the release v1.2.3',
  ];
  await mem.storeMany(texts.map((text, i) => ({ id: `m${i}`, text, kind: i % 2 ? 'decision' : 'note', createdAt: NOW - (10 - i) * DAY, ...explicit(text) })));
  await mem.relate('m1', 'm0', 'SUPERSEDES');
  await mem.relate('m2', 'm4', 'RELATES_TO', { weight: 0.5 });
  await mem.relate('m3', 'm1', 'DEPENDS_ON', { metadata: { why: 'tooling' } });
  await mem.ready();
  return mem;
}

async function snapshotOf(embedder: Embedder | null, dim?: number): Promise<Uint8Array> {
  const mem = await sourceStore(embedder, dim);
  const bytes = await mem.exportSnapshot();
  await mem.close();
  return bytes;
}

function withPart(u: Unpacked, name: string, data: Uint8Array): Unpacked {
  const c = clone(u);
  c.parts.set(name, data);
  return c;
}

function lines(bytes: Uint8Array): string[] {
  return new TextDecoder().decode(bytes).split('\n').slice(0, -1);
}

const fromLines = (ls: string[]) => enc.encode(ls.map((l) => `${l}\n`).join(''));

function flip(bytes: Uint8Array, at: number): Uint8Array {
  const out = bytes.slice();
  out[at] = out[at]! ^ (1 + rand.int(255));
  return out;
}

// ---- the valid material the corpus is cut from ----
const base = await snapshotOf(new HashEmbedder(DIM));
const good = unpack(base);
const baseEntries = await entriesOf(good);

const corpus: Case[] = [];
const add = (c: Case) => corpus.push(c);

// bomb: ratio, declared sizes, totals, lies, overlap
const zeros = [2 * MiB, 3 * MiB].map((n) => new Uint8Array(n));
for (const part of PARTS.filter((p) => p !== 'vectors.f32')) {
  for (const z of zeros) {
    const entries = baseEntries.map((e) => (e.name === part ? { ...e, data: z } : e));
    add({ name: `bomb: ${part} inflates ${z.length} zeros`, bytes: writeZip(entries), code: 'CORRUPT', reason: /ratio/ });
  }
}
for (const e of baseEntries) {
  const entries = baseEntries.map((x) => (x.name === e.name ? { ...x, declaredSize: 0xf0000000 } : x));
  add({ name: `bomb: ${e.name} declares 3.75 GiB`, bytes: writeZip(entries), code: 'CORRUPT', reason: /declares|over the limit/ });
}
const totalSize = baseEntries.reduce((n, e) => n + e.data.length, 0);
for (const total of [totalSize / 4, totalSize / 2, totalSize - 1]) {
  add({ name: `bomb: total over maxTotalBytes ${total}`, bytes: base, code: 'CORRUPT', reason: /maxTotalBytes|over the limit/, limits: { maxTotalBytes: total } });
}
for (const part of DEFLATED) {
  // The manifest agrees with the lie, so only the inflater can notice.
  const lie = clone(good);
  for (const p of lie.manifest['parts'] as Array<{ name: string; bytes: number }>) if (p.name === part) p.bytes = 1000;
  const entries = (await entriesOf(lie, { fixChecksums: false })).map((e) => (e.name === part ? { ...e, data: new Uint8Array(2 * MiB), declaredSize: 1000 } : e));
  // No SQLite database is 1000 bytes long, so store.db's lie is caught before inflating.
  const reason = part === 'store.db' ? /which no SQLite database has/ : /past its declared/;
  add({ name: `bomb: ${part} declares 1000 bytes, inflates 2 MiB`, bytes: writeZip(entries), code: 'CORRUPT', reason, limits: { maxRatio: 1e9 } });
}
for (const [a, b] of [['graph.jsonl', 'bm25.jsonl'], ['store.db', 'vectors.ids.json']] as const) {
  // The central directory sends two names to the same local data: one small payload, expanded twice.
  const zip = writeZip(baseEntries);
  const view = new DataView(zip.buffer);
  const end = zip.length - 22;
  let at = view.getUint32(end + 16, true);
  const offsets = new Map<string, number>();
  const records: Array<{ name: string; at: number }> = [];
  for (let i = 0; i < baseEntries.length; i++) {
    const nameLength = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength));
    offsets.set(name, view.getUint32(at + 42, true));
    records.push({ name, at });
    at += 46 + nameLength;
  }
  view.setUint32(records.find((r) => r.name === b)!.at + 42, offsets.get(a)!, true);
  add({ name: `bomb: ${a} and ${b} share their data`, bytes: zip, code: 'CORRUPT', reason: /local header names another file|overlap/ });
}

// slip: unsafe names, as an extra entry and in place of a real one
const SLIPS = ['../x', '../../etc/passwd', '/abs', '/etc/passwd', 'a/../../b', '..\\x', 'a\\b', 'C:\\x', 'C:/x', 'c:store.db',
  './store.db', 'store.db/..', '..', 'x/./y', '\\\\host\\share', 'foo/../store.db', 'a\u0000b', 'tab\tname'];
for (const slip of SLIPS) {
  add({ name: `slip: extra entry ${JSON.stringify(slip)}`, bytes: writeZip([...baseEntries, { name: slip, data: enc.encode('pwned') }]), code: 'CORRUPT', reason: /unsafe entry name/ });
  const victim = rand.pick(baseEntries).name;
  add({ name: `slip: ${victim} renamed ${JSON.stringify(slip)}`, bytes: writeZip(baseEntries.map((e) => (e.name === victim ? { ...e, name: slip } : e))), code: 'CORRUPT', reason: /unsafe entry name/ });
}

// checksum mismatch: content changed, manifest not
for (const part of PARTS) {
  for (let i = 0; i < 3; i++) {
    const data = good.parts.get(part)!;
    add({ name: `checksum: byte flipped in ${part} (#${i})`, bytes: await repack(withPart(good, part, flip(data, rand.int(data.length))), { fixChecksums: false }), code: 'CORRUPT', reason: /checksum mismatch/ });
  }
  const lie = clone(good);
  const entry = (lie.manifest['parts'] as Array<{ name: string; sha256: string }>).find((p) => p.name === part)!;
  entry.sha256 = Array.from({ length: 64 }, () => '0123456789abcdef'[rand.int(16)]).join('');
  add({ name: `checksum: manifest lies about ${part}`, bytes: await repack(lie, { fixChecksums: false }), code: 'CORRUPT', reason: /checksum mismatch/ });
}

// truncated: the compressed stream, the whole archive, a part (with matching checksums)
for (const part of DEFLATED) {
  for (const keep of [0.5, 0.9]) {
    const entries = baseEntries.map((e): RawEntry => {
      if (e.name !== part) return e;
      const payload = deflateSync(e.data);
      return { ...e, payload: payload.subarray(0, Math.max(1, Math.floor(payload.length * keep))) };
    });
    add({ name: `truncated: ${part} stream cut to ${keep * 100}%`, bytes: writeZip(entries), code: 'CORRUPT', reason: /does not inflate|truncated/ });
  }
}
for (let i = 0; i < 5; i++) {
  add({ name: `truncated: archive cut at byte ${i}`, bytes: base.subarray(0, rand.int(base.length - 23)), code: 'CORRUPT', reason: /not a ZIP archive|central directory|local header|runs past/ });
}
{
  const f32 = good.parts.get('vectors.f32')!;
  add({ name: 'truncated: vectors.f32 one float short', bytes: await repack(withPart(good, 'vectors.f32', f32.subarray(0, f32.length - 4))), code: 'CORRUPT', reason: /vectors\.f32 declares \d+ bytes; \d+ vectors/ });
  add({ name: 'truncated: vectors.f32 one row short', bytes: await repack(withPart(good, 'vectors.f32', f32.subarray(0, f32.length - DIM * 4))), code: 'CORRUPT', reason: /vectors\.f32 declares \d+ bytes; \d+ vectors/ });
  const graph = good.parts.get('graph.jsonl')!;
  add({ name: 'truncated: graph.jsonl mid-line', bytes: await repack(withPart(good, 'graph.jsonl', graph.subarray(0, graph.length - 7))), code: 'CORRUPT', reason: /graph\.jsonl/ });
  const bm25 = good.parts.get('bm25.jsonl')!;
  add({ name: 'truncated: bm25.jsonl mid-line', bytes: await repack(withPart(good, 'bm25.jsonl', bm25.subarray(0, bm25.length - 3))), code: 'CORRUPT', reason: /bm25\.jsonl/ });
  const db = good.parts.get('store.db')!;
  add({ name: 'truncated: store.db at half', bytes: await repack(withPart(good, 'store.db', db.subarray(0, db.length / 2))), code: 'CORRUPT', reason: /store\.db is \d+ bytes, not a whole number of \d+-byte pages/ });
}

// wrong dim and wrong model, against the live store's 16-d test embedder
for (const dim of [4, 8, 12, 15, 17, 24, 32, 64]) {
  add({ name: `wrong dim: embedder makes ${dim}-d`, bytes: await snapshotOf(new HashEmbedder(dim)), code: 'DIMENSION_MISMATCH', reason: /-d vectors/ });
}
for (const dim of [3, 48]) {
  add({ name: `wrong dim: explicit ${dim}-d vectors`, bytes: await snapshotOf(null, dim), code: 'DIMENSION_MISMATCH', reason: /-d vectors/ });
}
for (let i = 0; i < 5; i++) {
  const other: Embedder = { id: `other-model-${i}`, dim: DIM, embed: async (texts) => texts.map((t) => hashVector(`${i}${t}`, DIM)) };
  add({ name: `wrong model: ${other.id}`, bytes: await snapshotOf(other), code: 'MODEL_MISMATCH', reason: /come from/ });
}

// NaN and Infinity, in vectors.f32 (checksums fixed) and in store.db's blobs
for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
  for (let i = 0; i < 4; i++) {
    const f32 = good.parts.get('vectors.f32')!.slice();
    new DataView(f32.buffer).setFloat32(rand.int(f32.length / 4) * 4, value, true);
    add({ name: `NaN vector: ${value} in vectors.f32 (#${i})`, bytes: await repack(withPart(good, 'vectors.f32', f32)), code: 'CORRUPT', reason: /vectors\.f32 holds/ });
  }
}
for (const no of [1, 4]) {
  const blob = new Float32Array(DIM).fill(Number.NaN);
  const hex = Buffer.from(blob.buffer).toString('hex');
  const db = await editDb(good.parts.get('store.db')!, [`UPDATE vectors SET vector = x'${hex}' WHERE no = ${no}`]);
  add({ name: `NaN vector: in store.db memory ${no}`, bytes: await repack(withPart(good, 'store.db', db)), code: 'CORRUPT', reason: /differs between vectors\.f32 and store\.db/ });
}

// future versions: format major, manifest schema, store.db schema
for (const version of ['2.0', '2.1', '3.0', '10.0', '999.999']) {
  const u = clone(good);
  u.manifest['formatVersion'] = version;
  add({ name: `future version: format ${version}`, bytes: await repack(u), code: 'UNSUPPORTED', reason: /format version .* upgrade/ });
}
{
  const u = clone(good);
  u.manifest['formatVersion'] = '2.0';
  u.manifest['parts'] = 'a format 2 could say anything here';
  add({ name: 'future version: format 2.0 with a new manifest shape', bytes: await repack(u, { fixChecksums: false }), code: 'UNSUPPORTED', reason: /format version/ });
}
for (const v of [SCHEMA_VERSION + 1, SCHEMA_VERSION + 10, 999]) {
  const u = clone(good);
  u.manifest['schemaVersion'] = v;
  add({ name: `future version: manifest schema ${v}`, bytes: await repack(u), code: 'UNSUPPORTED', reason: /schema version/ });
}
for (const v of [SCHEMA_VERSION + 1, 50, 1000]) {
  const db = await editDb(good.parts.get('store.db')!, [`UPDATE meta SET value = '${v}' WHERE key = 'schema_version'`]);
  add({ name: `future version: store.db schema ${v}`, bytes: await repack(withPart(good, 'store.db', db)), code: 'UNSUPPORTED', reason: /schema version/ });
}

// duplicate entries
for (const e of baseEntries) {
  add({ name: `duplicate entry: ${e.name} twice`, bytes: writeZip([...baseEntries, e]), code: 'CORRUPT', reason: /duplicate entry/ });
  add({ name: `duplicate entry: ${e.name} with other content first`, bytes: writeZip([{ ...e, data: enc.encode('{}') }, ...baseEntries]), code: 'CORRUPT', reason: /duplicate entry/ });
}

// unknown and missing entries
for (const extra of ['README.md', 'store.db-wal', 'STORE.DB', 'vectors.f64', 'extra/', 'dir/file.txt', 'manifest.json.bak', ' manifest.json', 'graph.json', '.hidden']) {
  add({ name: `unknown entry: ${JSON.stringify(extra)}`, bytes: writeZip([...baseEntries, { name: extra, data: enc.encode('x') }]), code: 'CORRUPT', reason: /unknown entry/ });
}
for (const e of baseEntries) {
  add({ name: `missing entry: ${e.name}`, bytes: writeZip(baseEntries.filter((x) => x !== e)), code: 'CORRUPT', reason: /lacks/ });
}

// oversized manifests
const manifestText = new TextDecoder().decode(baseEntries[0]!.data);
const padded = (n: number) => enc.encode(manifestText.replace(/^\{/, `{"padding":"${'x'.repeat(n)}",`));
for (const n of [1.01 * MiB, 2 * MiB, 5 * MiB]) {
  add({ name: `oversized manifest: ${n} bytes`, bytes: writeZip([{ name: 'manifest.json', data: padded(Math.floor(n)) }, ...baseEntries.slice(1)]), code: 'CORRUPT', reason: /manifest\.json.*over the limit/ });
}
for (const n of [1000, 2000, 3000, 4000, 5000]) {
  add({ name: `oversized manifest: +${n} bytes over a 2 KiB limit`, bytes: writeZip([{ name: 'manifest.json', data: padded(n) }, ...baseEntries.slice(1)]), code: 'CORRUPT', reason: /over the limit/, limits: { maxManifestBytes: 2048 } });
}
for (const n of [2 * MiB, 3 * MiB]) {
  const lying = { name: 'manifest.json', data: padded(n), declaredSize: 900 };
  add({ name: `oversized manifest: declares 900 bytes, inflates ${n}`, bytes: writeZip([lying, ...baseEntries.slice(1)]), code: 'CORRUPT', reason: /past its declared/ });
}

// invalid JSON
const BAD_MANIFESTS: Array<[string, Uint8Array, RegExp]> = [
  ['open brace', enc.encode('{'), /manifest\.json is not valid UTF-8 JSON/],
  ['cut value', enc.encode('{"format":'), /manifest\.json is not valid UTF-8 JSON/],
  ['prose', enc.encode('not json at all'), /manifest\.json is not valid UTF-8 JSON/],
  ['array', enc.encode('[]'), /manifest\.json must hold a JSON object/],
  ['string', enc.encode('"hybridmind.mind.zip"'), /manifest\.json must hold a JSON object/],
  ['null', enc.encode('null'), /manifest\.json must hold a JSON object/],
  ['empty object', enc.encode('{}'), /manifest format is undefined, expected "hybridmind\.mind\.zip"/],
  ['BOM', new Uint8Array([0xef, 0xbb, 0xbf, ...baseEntries[0]!.data]), /manifest\.json is not valid UTF-8 JSON/],
  ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /manifest\.json is not valid UTF-8 JSON/],
  ['trailing garbage', enc.encode(`${manifestText}}}`), /manifest\.json is not valid UTF-8 JSON/],
  ['NaN literal', enc.encode(manifestText.replace('"dim": 16', '"dim": NaN')), /manifest\.json is not valid UTF-8 JSON/],
];
for (const [what, bytes, reason] of BAD_MANIFESTS) {
  add({ name: `invalid JSON: manifest ${what}`, bytes: writeZip([{ name: 'manifest.json', data: bytes }, ...baseEntries.slice(1)]), code: 'CORRUPT', reason });
}
{
  const g = lines(good.parts.get('graph.jsonl')!);
  add({ name: 'invalid JSON: graph.jsonl cut line', bytes: await repack(withPart(good, 'graph.jsonl', fromLines([...g.slice(0, 2), '{"node":', ...g.slice(3)]))), code: 'CORRUPT', reason: /graph\.jsonl line 3 is not JSON/ });
  add({ name: 'invalid JSON: graph.jsonl garbage line', bytes: await repack(withPart(good, 'graph.jsonl', fromLines([...g, 'garbage']))), code: 'CORRUPT', reason: /graph\.jsonl line \d+ is not JSON/ });
  add({ name: 'invalid JSON: graph.jsonl without final newline', bytes: await repack(withPart(good, 'graph.jsonl', enc.encode(g.join('\n')))), code: 'CORRUPT', reason: /newline/ });
  const b = lines(good.parts.get('bm25.jsonl')!);
  add({ name: 'invalid JSON: bm25.jsonl cut line', bytes: await repack(withPart(good, 'bm25.jsonl', fromLines([b[0]!.slice(0, 10), ...b.slice(1)]))), code: 'CORRUPT', reason: /bm25\.jsonl line 1 is not JSON/ });
  add({ name: 'invalid JSON: bm25.jsonl wrong shape', bytes: await repack(withPart(good, 'bm25.jsonl', fromLines([...b.slice(1), '{"id":"m0","tokens":"adr"}']))), code: 'CORRUPT', reason: /bm25\.jsonl line \d+ must be/ });
  add({ name: 'invalid JSON: vectors.ids.json cut', bytes: await repack(withPart(good, 'vectors.ids.json', enc.encode('["m0","m1"'))), code: 'CORRUPT', reason: /vectors\.ids\.json is not valid/ });
  add({ name: 'invalid JSON: vectors.ids.json object', bytes: await repack(withPart(good, 'vectors.ids.json', enc.encode('{"m0":0}'))), code: 'CORRUPT', reason: /vectors\.ids\.json must be/ });
}

// dangling edges: in graph.jsonl, and in store.db (foreign keys off while writing it)
{
  const g = lines(good.parts.get('graph.jsonl')!);
  const edgeAt = g.findIndex((l) => l.includes('"edge"'));
  for (let i = 0; i < 5; i++) {
    const edge = JSON.parse(g[edgeAt + (i % 3)]!);
    edge[i % 2 ? 'from' : 'to'] = `ghost-${i}`;
    const changed = [...g];
    changed[edgeAt + (i % 3)] = JSON.stringify(edge);
    add({ name: `dangling edge: graph.jsonl edge to ghost-${i}`, bytes: await repack(withPart(good, 'graph.jsonl', fromLines(changed))), code: 'CORRUPT', reason: /dangling edge/ });
  }
  for (const [src, dst] of [[1, 999], [999, 2], [77, 78], [3, 1_000_000], [-1, 2]]) {
    const db = await editDb(good.parts.get('store.db')!, [`INSERT INTO edges (id, src, dst, type, weight, metadata, valid_from, created_at) VALUES ('dangling-${src}-${dst}', ${src}, ${dst}, 'RELATES_TO', 1, '{}', 0, 0)`]);
    add({ name: `dangling edge: store.db edge ${src} → ${dst}`, bytes: await repack(withPart(good, 'store.db', db)), code: 'CORRUPT', reason: /foreign_key_check/ });
  }
  for (const no of [99, 12345]) {
    const db = await editDb(good.parts.get('store.db')!, [`INSERT INTO vectors (no, vector) VALUES (${no}, zeroblob(${DIM * 4}))`]);
    add({ name: `dangling edge: store.db vector of missing memory ${no}`, bytes: await repack(withPart(good, 'store.db', db)), code: 'CORRUPT', reason: /foreign_key_check/ });
  }
}

// corrupt database: structure bytes flipped (checksums recomputed, so SQLite's checks must catch it), and schema or rows tampered
{
  const db = good.parts.get('store.db')!;
  const probe = await SqliteWasmDriver.open({ bytes: db });
  const pageSize = Number(probe.all<{ page_size: number }>('PRAGMA page_size')[0]!.page_size);
  const roots = probe.all<{ name: string; rootpage: number }>('SELECT name, rootpage FROM sqlite_master WHERE rootpage > 0').map((r) => ({ name: r.name, page: Number(r.rootpage) }));
  probe.close();
  roots.push({ name: 'sqlite_master', page: 1 });
  for (const { name, page } of roots) {
    // Page 1 holds the schema: SQLite cannot open the file at all. Any other page: its integrity_check catches it.
    const reason = page === 1 ? /store\.db: SQLITE_CORRUPT/ : /store\.db fails SQLite's integrity_check/;
    const at = (page - 1) * pageSize + (page === 1 ? 100 : 0);
    const type = db.slice();
    type[at] = rand.pick([0x00, 0x01, 0x03, 0x07, 0x0b, 0xff]);
    add({ name: `corrupt database: page type of ${name} (page ${page})`, bytes: await repack(withPart(good, 'store.db', type)), code: 'CORRUPT', reason });
    const cells = db.slice();
    cells[at + 3] = 0xff;
    cells[at + 4] = 0xff;
    add({ name: `corrupt database: cell count of ${name} (page ${page})`, bytes: await repack(withPart(good, 'store.db', cells)), code: 'CORRUPT', reason });
  }
  const header = db.slice();
  header.set(enc.encode('SQLite format 4\0'), 0);
  add({ name: 'corrupt database: magic string', bytes: await repack(withPart(good, 'store.db', header)), code: 'CORRUPT', reason: /store\.db is not a SQLite database \(bad header\)/ });
  const random = new Uint8Array(db.length).map(() => rand.int(256));
  add({ name: 'corrupt database: random bytes', bytes: await repack(withPart(good, 'store.db', random)), code: 'CORRUPT', reason: /store\.db is not a SQLite database \(bad header\)/ });
  const TAMPER: Array<[string, string[], RegExp]> = [
    ['extra table', ['CREATE TABLE extra (x)'], /store\.db does not have the hybridmind schema: unexpected table "extra"/],
    ['trigger', ["CREATE TRIGGER t AFTER INSERT ON memories BEGIN UPDATE meta SET value = 'x'; END"], /store\.db does not have the hybridmind schema: unexpected trigger "t"/],
    ['view', ['CREATE VIEW v AS SELECT * FROM memories'], /store\.db does not have the hybridmind schema: unexpected view "v"/],
    ['dropped index', ['DROP INDEX edges_src'], /store\.db does not have the hybridmind schema \(tables, indexes, views or triggers differ\)/],
    ['metadata not JSON', ["UPDATE memories SET metadata = 'not json' WHERE no = 2"], /store\.db memory row 2: metadata must be JSON text/],
    ['metadata past a double', ['UPDATE memories SET metadata = \'{"a":{"b":[1e400]}}\' WHERE no = 2'], /store\.db memory row 2: metadata holds a number a double cannot keep at a\.b\[0\]/],
    // SQLite's TEXT affinity stores 42 as the text '42', so what catches it is the lexical part no longer matching the row.
    ['text not a string', ['UPDATE memories SET text = 42 WHERE no = 3'], /bm25\.jsonl disagrees with store\.db: the tokens of "m2" are not those of its text/],
    ['edge weight not finite', ["UPDATE edges SET weight = 'heavy' WHERE no = 1"], /store\.db edge row 1: weight must be a finite number > 0/],
    ['meta dim changed', ["UPDATE meta SET value = '17' WHERE key = 'dim'"], /store\.db vector of memory 1: the blob must be 17 float32 values/],
  ];
  for (const [what, sql, reason] of TAMPER) {
    add({ name: `corrupt database: ${what}`, bytes: await repack(withPart(good, 'store.db', await editDb(db, sql))), code: 'CORRUPT', reason });
  }
}

// ---- the proof ----
const live = await HybridMemory.open({ embedder: new HashEmbedder(DIM), now: () => NOW });
await live.storeMany([{ id: 'live-1', text: 'the live store must not change' }, { id: 'live-2', text: 'whatever it is fed' }]);
await live.relate('live-2', 'live-1', 'SUPERSEDES');
await live.ready();
const before = await sha256Hex('test', await live.exportDatabase());
afterAll(() => live.close());

const classes = [...new Set(corpus.map((c) => c.name.split(':')[0]!))];

describe('the hostile corpus', () => {
  it('holds at least 200 archives across every named class', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    expect(classes).toEqual(expect.arrayContaining(['bomb', 'slip', 'checksum', 'truncated', 'wrong dim', 'wrong model', 'NaN vector', 'future version',
      'duplicate entry', 'unknown entry', 'missing entry', 'oversized manifest', 'invalid JSON', 'dangling edge', 'corrupt database']));
  });

  it('is cut from archives that are valid: the unmodified repack and a newer minor version are accepted', async () => {
    for (const bytes of [base, writeZip(baseEntries), await repack(Object.assign(clone(good), { manifest: { ...good.manifest, formatVersion: '1.9', futureField: true } }))]) {
      const mem = await HybridMemory.importSnapshot(bytes, { embedder: new HashEmbedder(DIM) });
      expect((await mem.stats()).memories).toBe(6);
      await mem.close();
    }
  });
});

describe.each(classes)('%s archives', (cls) => {
  it.each(corpus.filter((c) => c.name.startsWith(`${cls}:`)).map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const options = c.limits ? { limits: c.limits } : {};
    const restored = await refusal(() => live.restoreSnapshot(c.bytes, options));
    expect(restored.code, restored.message).toBe(c.code);
    expect(restored.message).toMatch(c.reason);
    expect(restored.method).toBe('restoreSnapshot');
    expect(await sha256Hex('test', await live.exportDatabase())).toBe(before);
    const imported = await refusal(() => HybridMemory.importSnapshot(c.bytes, { embedder: new HashEmbedder(DIM), ...options }));
    expect(imported.code, imported.message).toBe(c.code);
  });
});

describe('after the corpus', () => {
  it('the live store still answers as before', async () => {
    expect((await live.recall('live store', { mode: 'lexical' })).map((h) => h.id)).toEqual(['live-1']);
    expect(await live.stats()).toMatchObject({ memories: 2, edges: 1, dim: DIM });
  });
});
