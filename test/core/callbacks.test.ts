import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Runs a script in a fresh Node process, so an unhandled rejection does what it does in an app:
 * ends the process with code 1. (Inside vitest it would only be reported.)
 */
function runNode(script: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('callbacks that throw', () => {
  it('a throwing enrichment.onProgress is reported through the logger; enrichment finishes and Node does not exit', () => {
    const { status, stdout, stderr } = runNode(`
      import { HybridMemory } from './src/hybrid-memory.ts';
      import { HashEmbedder } from './test/support/hash-embedder.ts';
      const logged = [];
      const mem = await HybridMemory.open({
        embedder: new HashEmbedder(),
        logger: (level, message, data) => logged.push({ level, message, error: data?.error }),
        enrichment: { batchSize: 1, onProgress: () => { throw new Error('the progress bar is gone'); } },
      });
      await mem.storeMany([{ text: 'first memory' }, { text: 'second memory' }, { text: 'third memory' }]);
      await mem.ready();
      const stats = await mem.stats();
      await mem.close();
      process.stdout.write(JSON.stringify({ semantic: stats.readiness.semantic, logged }));
    `);
    expect(stderr).not.toMatch(/the progress bar is gone/);
    expect(status).toBe(0);
    const { semantic, logged } = JSON.parse(stdout) as { semantic: number; logged: Array<{ level: string; message: string; error?: string }> };
    expect(semantic).toBe(3);
    expect(logged.length).toBeGreaterThan(0);
    for (const entry of logged) {
      expect(entry.level).toBe('error');
      expect(entry.message).toMatch(/onProgress/);
      expect(entry.error).toBe('the progress bar is gone');
    }
  });
});
