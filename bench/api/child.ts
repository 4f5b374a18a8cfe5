/**
 * One reopen of a store built by `run.ts`, in a fresh process: `node --expose-gc --import tsx
 * bench/api/child.ts <json options>`. Opens the file, times each call of `CALLS` right after the
 * open (before any background work ran), then again, then once more after `SETTLE_MS` idle, then one write and the close that saves
 * the derived indexes it changed; prints the timings as JSON.
 */
import { readFileSync } from 'node:fs';
import { HybridMemory } from '../../src/index.js';
import { CALLS, SETTLE_MS, type ApiChildOptions, type ApiChildResult } from './calls.js';

async function main(o: ApiChildOptions): Promise<ApiChildResult> {
  const query = { text: o.query.text, vector: Float32Array.from(o.query.vector) };
  const id = `d${Math.floor(o.n / 2) + 1}`;
  let t0 = performance.now();
  const mem = await HybridMemory.open({ storage: o.file, embedder: null, ann: false });
  const openMs = performance.now() - t0;
  const round = async () => {
    const out: number[] = [];
    for (const [, run] of CALLS) {
      t0 = performance.now();
      await run(mem, id, query, o.path);
      out.push(performance.now() - t0);
    }
    return out;
  };
  const first = await round();
  const again = await round();
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const settled = await round();
  t0 = performance.now();
  await mem.store({ id: `api-last-${process.pid}`, text: 'one more decision: Order #4821 ships on Tuesday', kind: 'decision', embedding: query.vector });
  const storeMs = performance.now() - t0;
  const written = writtenBytes();
  t0 = performance.now();
  await mem.close();
  const closeMs = performance.now() - t0;
  const after = writtenBytes();
  return { openMs, first, again, settled, storeMs, closeMs, closeWrittenBytes: written === null || after === null ? null : after - written };
}

/** Bytes this process has passed to write calls so far (WAL frames, the checkpoint into the file), where Linux says. */
function writtenBytes(): number | null {
  try {
    const line = /^wchar:\s*(\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

process.stdout.write(JSON.stringify(await main(JSON.parse(process.argv[2]!) as ApiChildOptions)));
