import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { chromium, type Browser, type Page } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from '../../../playwright.config.js';

export { CHROMIUM, CHROMIUM_ARGS };

/** A port nobody listens on right now (other helpers' servers use fixed ones). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Served {
  url: string;
  stop(): Promise<void>;
}

/** Starts `npx vite <args>` in `cwd` on a free port and resolves once it answers. */
export async function serveVite(cwd: string, args: string[]): Promise<Served> {
  const port = await freePort();
  const child: ChildProcess = spawn('npx', ['vite', ...args, '--port', String(port), '--strictPort', '--host', '127.0.0.1'], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
  };
  const url = `http://127.0.0.1:${port}/`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`vite ${args.join(' ')} exited:\n${output}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return { url, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`vite ${args.join(' ')} did not answer on ${url}:\n${output}`);
}

export interface AppResult {
  legsRun: string[];
  ids: string[];
  memories: number;
  model?: { state: string; error: string | null };
}

/** Loads `url` and returns what the fixture page printed into #out, failing with the page's errors. */
export async function pageResult(page: Page, url: string | null): Promise<AppResult> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (url) await page.goto(url);
  else await page.reload();
  const handle = await page.waitForFunction(() => {
    const text = document.getElementById('out')?.textContent ?? '';
    return text.startsWith('{') ? text : null;
  }, undefined, { timeout: 180_000 }).catch((error: Error) => {
    throw new Error(`${error.message}\npage errors: ${errors.join('\n')}`);
  });
  return JSON.parse((await handle.jsonValue()) as string) as AppResult;
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}
