import { describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { optionalImport } from '../src/optional-import.js';

describe('optionalImport', () => {
  it('returns the module when the package is installed', async () => {
    const fflate = await optionalImport<typeof import('fflate')>('test', 'fflate', 'fflate');
    expect(typeof fflate.zipSync).toBe('function');
  });

  it('turns a missing package into MISSING_DEPENDENCY naming the install command', async () => {
    const error = await optionalImport('TransformersEmbedder.create', 'hybridmind-no-such-package/sub.js', 'hybridmind-no-such-package').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HybridMindError);
    expect((error as HybridMindError).code).toBe('MISSING_DEPENDENCY');
    expect((error as HybridMindError).message).toBe('TransformersEmbedder.create: needs the optional package "hybridmind-no-such-package", which is not installed; run `npm install hybridmind-no-such-package`');
  });

  it('rethrows other failures of an installed package as they are', async () => {
    const error = await optionalImport('test', 'data:text/javascript,throw new RangeError("boom")', 'fflate').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
  });
});
