/**
 * `node --import tsx bench/reliability/bombs.ts [--limit-mib 1024]`: the zip bombs of the
 * hostile-archive suite at full size, each refused by `importSnapshot` and by `restoreSnapshot`
 * (into a live store) in a fresh process, reporting wall time and the process's peak RSS. The
 * bombs at the size limit are built for `limits.maxTotalBytes` = `--limit-mib` (default: the
 * default limit, 1 GiB) and read with that limit. The suite asserts the refusals; this measures
 * them (the README's reliability section quotes it). The load is printed next to the figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HybridMemory, HybridMindError, SNAPSHOT_LIMITS } from '../../src/index.js';
import { entriesOf, unpack } from '../../test/snapshot/support/archive.js';
import { makeBomb } from '../../test/snapshot/support/bomb.js';
import { HashEmbedder } from '../../test/support/hash-embedder.js';

const MiB = 1024 * 1024;
const embedder = new HashEmbedder(16);
const { values } = parseArgs({ options: { child: { type: 'string' }, method: { type: 'string' }, 'limit-mib': { type: 'string', default: String(SNAPSHOT_LIMITS.maxTotalBytes / MiB) } } });
const limits = { maxTotalBytes: Number(values['limit-mib']) * MiB };

/** One refusal per process, so maxRSS is this refusal's peak and nothing else's. */
async function child(file: string, method: string | undefined): Promise<void> {
  const bytes = new Uint8Array(await readFile(file));
  const live = method === 'restore' ? await HybridMemory.open({ embedder }) : null;
  if (live) await live.store({ id: 'live', text: 'the live store' });
  const baseline = process.resourceUsage().maxRSS;
  const started = performance.now();
  let outcome: string;
  try {
    if (live) await live.restoreSnapshot(bytes, { limits });
    else await HybridMemory.importSnapshot(bytes, { embedder, limits });
    outcome = 'ACCEPTED';
  } catch (error) {
    outcome = error instanceof HybridMindError ? `${error.code}: ${error.message.slice(0, 140).replace(/\n/g, ' ')}` : `NOT TYPED: ${String(error)}`;
  }
  const ms = performance.now() - started;
  if (live && (await live.get('live'))?.text !== 'the live store') outcome += ' — THE LIVE STORE CHANGED';
  process.stdout.write(JSON.stringify({ ms, peakMiB: process.resourceUsage().maxRSS / 1024, baselineMiB: baseline / 1024, outcome }));
  await live?.close();
}

/** Builds each bomb and has a fresh process refuse it by each method. */
async function main(): Promise<void> {
  const source = await HybridMemory.open({ embedder });
  await source.storeMany([{ id: 'a', text: 'ADR-007: SQLite-WASM on OPFS' }, { id: 'b', text: 'the build uses vite' }]);
  await source.ready();
  const entries = await entriesOf(unpack(await source.exportSnapshot()));
  await source.close();

  // The limit holds every entry, so the largest store.db leaves room for the others.
  const atLimit = limits.maxTotalBytes - 4 * MiB;
  const cases = [
    { name: "issue 12's bomb (store.db 900 MiB, ratio ~160)", bomb: () => makeBomb({ entries, storeDbBytes: 900 * MiB, ratio: 161 }) },
    { name: `front-loaded, store.db ${atLimit / MiB} MiB, declared ratio ~90`, bomb: () => makeBomb({ entries, storeDbBytes: atLimit, ratio: 1000, tailBytes: Math.ceil(atLimit / 90 / 65536) * 65536 }) },
    { name: `just under the ratio (99) at the size limit, store.db ${atLimit / MiB} MiB`, bomb: () => makeBomb({ entries, storeDbBytes: atLimit, ratio: 99 }) },
  ];

  const dir = await mkdtemp(join(os.tmpdir(), 'hybridmind-bombs-'));
  const rows: string[] = [];
  try {
    for (const c of cases) {
      const bomb = c.bomb();
      const file = join(dir, 'bomb.mind.zip');
      await writeFile(file, bomb.zip);
      for (const method of ['import', 'restore']) {
        const run = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', file, '--method', method], { encoding: 'utf8', maxBuffer: 1 << 20 });
        const result = JSON.parse(run.stdout || '{}') as { ms?: number; peakMiB?: number; baselineMiB?: number; outcome?: string };
        const line = `| ${c.name} | ${(bomb.zip.length / MiB).toFixed(1)} MiB | ${method === 'import' ? 'importSnapshot' : 'restoreSnapshot'} | ${result.ms?.toFixed(0)} ms | ${result.peakMiB?.toFixed(0)} MiB (before: ${result.baselineMiB?.toFixed(0)}) | ${result.outcome ?? run.stderr.slice(-300)} |`;
        rows.push(line);
        process.stderr.write(`${line}\n`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`limits.maxTotalBytes ${limits.maxTotalBytes / MiB} MiB, maxRatio ${SNAPSHOT_LIMITS.maxRatio}; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores, ${os.cpus()[0]?.model}, node ${process.version}`);
  console.log('| bomb | archive | refused by | time | peak RSS | outcome |\n|---|---|---|---|---|---|');
  console.log(rows.join('\n'));
}

if (values.child) await child(values.child, values.method);
else await main();
