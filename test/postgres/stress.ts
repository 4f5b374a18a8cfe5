import { HybridMindError } from '../../src/index.js';
import { PostgresMemory, type PostgresOpenOptions } from '../../src/postgres/index.js';
import { rng } from '../support/random.js';

export interface StressOptions {
  connection: PostgresOpenOptions['connection'];
  schema: string;
  embedder: PostgresOpenOptions['embedder'];
  clients: number;
  seconds: number;
  /** Memories stored before the clients start (on top of what the schema holds). */
  preload: number;
  batchSize?: number;
}

export interface StressResult {
  acknowledgedBatches: number;
  recalls: number;
  /** Reads that saw part of a batch (must be 0). */
  halfBatches: number;
  /** Acknowledged memories missing at the end (must be 0). */
  lostWrites: number;
  /** Errors that were not coded HybridMindErrors (must be 0), and the codes of those that were. */
  uncoded: unknown[];
  codes: Record<string, number>;
  memoriesAtEnd: number;
  expectedMemories: number;
  writesPerSecond: number;
  recallsPerSecond: number;
}

const WORDS = ['index', 'cache', 'queue', 'deploy', 'schema', 'latency', 'owner', 'budget', 'release', 'incident', 'backfill', 'replica', 'vector', 'graph', 'token', 'session'];

/**
 * Many clients at once on one memory, each with its own pool (as separate processes would be):
 * they store batches (each with a unique word only its members carry) and recall, for a bounded
 * time. A reader looks up a batch that may still be in flight: it must see all of it or none.
 * At the end every acknowledged memory must be there.
 */
export async function stress(o: StressOptions): Promise<StressResult> {
  const batchSize = o.batchSize ?? 5;
  const setup = await PostgresMemory.open({ connection: o.connection, schema: o.schema, embedder: o.embedder });
  const random = rng(11);
  const text = (i: number) => `Note ${i}: the ${WORDS[i % WORDS.length]} of service ${i % 97} needs a ${WORDS[(i * 7) % WORDS.length]} review`;
  for (let i = 0; i < o.preload; i += 5000) {
    await setup.storeMany(Array.from({ length: Math.min(5000, o.preload - i) }, (_, j) => ({ id: `pre-${i + j}`, text: text(i + j) })));
  }
  const startCount = (await setup.stats()).memories;
  await setup.close();

  const started: string[] = [];
  const acked: string[][] = [];
  const result = { recalls: 0, halfBatches: 0, uncoded: [] as unknown[], codes: {} as Record<string, number> };
  const deadline = Date.now() + o.seconds * 1000;
  const note = (error: unknown) => {
    if (error instanceof HybridMindError) result.codes[error.code] = (result.codes[error.code] ?? 0) + 1;
    else result.uncoded.push(error);
  };

  const client = async (c: number) => {
    const mem = await PostgresMemory.open({ connection: withPoolSize(o.connection, 2), schema: o.schema, embedder: o.embedder });
    try {
      for (let n = 0; Date.now() < deadline; n++) {
        const token = `zq${c}x${n}k`;
        started.push(token);
        const ids = Array.from({ length: batchSize }, (_, i) => `c${c}-b${n}-${i}`);
        try {
          await mem.storeMany(ids.map((id, i) => ({ id, text: `${token} ${text(c * 1000 + n + i)}` })));
          if (n % 3 === 0) await mem.relate(ids[0]!, ids[1]!, 'RELATES_TO');
          acked.push(ids);
        } catch (error) {
          note(error);
        }
        const probe = started[Math.floor(random() * started.length)]!;
        try {
          const hits = await mem.recall(probe, { mode: 'lexical', k: batchSize * 2 });
          const seen = hits.filter((h) => h.text.startsWith(`${probe} `)).length;
          if (seen !== 0 && seen !== batchSize) result.halfBatches++;
          await mem.recall(`${WORDS[n % WORDS.length]} review for service ${n % 97}`, { k: 10 });
          result.recalls += 2;
        } catch (error) {
          note(error);
        }
      }
    } finally {
      await mem.close();
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: o.clients }, (_, c) => client(c)));
  const elapsed = (Date.now() - t0) / 1000;

  const check = await PostgresMemory.open({ connection: withPoolSize(o.connection, 8), schema: o.schema, embedder: o.embedder });
  try {
    let lostWrites = 0;
    const all = acked.flat();
    for (let i = 0; i < all.length; i += 200) {
      const found = await Promise.all(all.slice(i, i + 200).map((id) => check.get(id)));
      lostWrites += found.filter((r) => r === null).length;
    }
    const memoriesAtEnd = (await check.stats()).memories;
    return {
      acknowledgedBatches: acked.length,
      ...result,
      lostWrites,
      memoriesAtEnd,
      expectedMemories: startCount + acked.length * batchSize,
      writesPerSecond: (acked.length * batchSize) / elapsed,
      recallsPerSecond: result.recalls / elapsed,
    };
  } finally {
    await check.close();
  }
}

function withPoolSize(connection: PostgresOpenOptions['connection'], max: number): PostgresOpenOptions['connection'] {
  if (typeof connection === 'string') return { connectionString: connection, max };
  if ('pool' in connection) return connection;
  return { ...connection, max };
}
