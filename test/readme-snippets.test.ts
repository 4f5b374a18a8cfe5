/**
 * The README's recipes are the fixtures the packed-package suite runs (test/consumers/): every code
 * block introduced by `<!-- file: path -->` must equal that file, so the README cannot drift from
 * what is tested.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const MARKED = [...README.matchAll(/<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)```/g)].map((m) => ({ path: m[1]!, code: m[2]! }));

describe('README code blocks', () => {
  it('mark the recipes the consumer fixtures run', () => {
    expect(MARKED.map((m) => m.path)).toEqual(expect.arrayContaining([
      'test/consumers/node/tour.mjs', 'test/consumers/vite-app/vite.config.js', 'test/consumers/vite-app/main.js',
      'test/consumers/extension/vite.config.js', 'test/consumers/deno/main.js',
    ]));
  });

  it.each(MARKED.map((m) => [m.path, m.code] as const))('%s is the file as it is', (path, code) => {
    expect(code.trimEnd()).toBe(readFileSync(join(ROOT, path), 'utf8').trimEnd());
  });
});
