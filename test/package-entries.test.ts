/**
 * TypeScript under node10 resolution (what `module: commonjs` implies) reads no `exports` map, so
 * `typesVersions` names each entry's declarations for it; both must name the same files.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

interface Manifest {
  exports: Record<string, string | { types?: string }>;
  typesVersions: Record<string, Record<string, string[]>>;
  types: string;
}

describe('package.json entries', () => {
  it("typesVersions gives node10 resolution every subpath's declarations, as exports gives them", async () => {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as Manifest;
    const fromExports: Record<string, string[]> = {};
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'object' && target.types && entry !== '.') fromExports[entry.slice(2)] = [target.types];
    }
    expect(Object.keys(fromExports).length).toBeGreaterThan(5);
    expect(manifest.typesVersions).toEqual({ '*': fromExports });
    expect(manifest.types).toBe((manifest.exports['.'] as { types: string }).types);
  });
});
