import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

const WORKERD = join(new URL('../../../', import.meta.url).pathname, 'node_modules/.bin/workerd');

export interface Workerd {
  url: string;
  /** What workerd wrote to stdout and stderr so far (for failure messages). */
  log(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Serves `config` with workerd on 127.0.0.1 at a port the kernel picks (`--socket-addr
 * http=127.0.0.1:0`); workerd reports it on a control pipe (`--control-fd 3`) once it listens,
 * so there is no port race and no polling. Rejects after `timeoutMs` without a report.
 */
export function startWorkerd(config: string, args: string[], timeoutMs = 20_000): Promise<Workerd> {
  const child: ChildProcess = spawn(WORKERD, ['serve', config, '--socket-addr', 'http=127.0.0.1:0', '--control-fd', '3', ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const stop = async (graceMs = 5_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop().then(() => reject(new Error(`workerd did not listen within ${timeoutMs} ms:\n${output}`)));
    }, timeoutMs);
    const early = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`workerd exited (${code}) before listening:\n${output}`));
    };
    child.once('close', early);
    let control = '';
    (child.stdio[3] as Readable).on('data', (d: Buffer) => {
      control += d.toString();
      for (const line of control.split('\n').slice(0, -1)) {
        const message = JSON.parse(line) as { event?: string; socket?: string; port?: number };
        if (message.event === 'listen' && message.socket === 'http') {
          clearTimeout(timer);
          child.off('close', early);
          resolve({ url: `http://127.0.0.1:${message.port}`, log: () => output, stop });
        }
      }
    });
  });
}
