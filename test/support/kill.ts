/** Running `crash-writer.ts` as a child and killing it with SIGKILL at a chosen moment (tests and the file-store benchmark). */
import { spawn } from 'node:child_process';
import { rng } from './random.js';

const CHILD = new URL('./crash-writer.ts', import.meta.url).pathname;

/** Runs the child until `killAfterMs` past its first line starting with `armOn`, kills it with SIGKILL, returns its complete output lines. */
export function runAndKill(args: string[], killAfterMs: number, armOn = 'open'): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let armed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!armed && out.split('\n').slice(0, -1).some((line) => line.startsWith(armOn))) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the writer ended by itself (${String(signal)}): ${err}`));
      else resolve(out.split('\n').slice(0, -1));
    });
  });
}

/** The sizes the child draws for its batches with `seed`, so a present batch can be checked whole. */
export function batchSizes(seed: number, count: number): number[] {
  const random = rng(seed);
  return Array.from({ length: count }, () => 1 + Math.floor(random() * 40));
}

export function acknowledged(lines: string[], verb: string): Array<{ batch: number; size: number }> {
  return lines.filter((l) => l.startsWith(`${verb} `)).map((l) => {
    const [, batch, size] = l.split(' ');
    return { batch: Number(batch), size: Number(size) };
  });
}

/** The 8-d embedding the child's `derive` mode gives memory `i` of `batch`, so the parent can ask for it. */
export function embeddingOf(batch: number, i: number): Float32Array {
  return Float32Array.from({ length: 8 }, (_, j) => Math.sin(batch * 7.3 + i * 1.9 + j * 0.7));
}
