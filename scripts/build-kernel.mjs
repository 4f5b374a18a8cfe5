// Assembles src/legs/vector/kernel.wat into kernel.wasm next to it, and into kernel-threads.wasm:
// the same code over an imported shared memory, so a second thread can run the int8 pass over
// part of the same codes (see scan-threads.ts). Only the memory's declaration differs.
// The .wasm files are committed because bundlers and workerd import them as files; this script
// keeps them in step with the source. Output is deterministic (no debug names, canonical LEBs),
// so rebuilding an unchanged .wat leaves the files byte-identical and untouched.
// `--check` exits 1 instead of writing when a committed .wasm is stale (for CI).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const watUrl = new URL('../src/legs/vector/kernel.wat', import.meta.url);
const check = process.argv.includes('--check');
const OWN_MEMORY = '(memory (export "memory") 1)';
/** 65,536 pages: wasm32's whole 4 GiB, the limit an unshared memory has without a declared maximum. */
const SHARED_MEMORY = '(import "env" "memory" (memory 1 65536 shared))';

const wabt = await wabtInit();
const source = await readFile(watUrl, 'utf8');
if (!source.includes(OWN_MEMORY)) throw new Error(`build-kernel: kernel.wat no longer declares ${OWN_MEMORY}`);

function assemble(text, features) {
  const module = wabt.parseWat('kernel.wat', text, features);
  try {
    module.resolveNames();
    // wabt's validator rejects shared memories whatever features it is given; the engine validates
    // that variant below instead.
    if (!features.threads) module.validate();
    return module.toBinary({ log: false, canonicalize_lebs: true, relocatable: false, write_debug_names: false }).buffer;
  } finally {
    module.destroy();
  }
}

const outputs = [
  ['kernel.wasm', assemble(source, { simd: true })],
  ['kernel-threads.wasm', assemble(source.replace(OWN_MEMORY, SHARED_MEMORY), { simd: true, threads: true })],
];
let stale = false;
for (const [name, bytes] of outputs) {
  if (!WebAssembly.validate(bytes)) throw new Error(`build-kernel: ${name} does not validate`);
  const url = new URL(`../src/legs/vector/${name}`, import.meta.url);
  let previous = null;
  try {
    previous = new Uint8Array(await readFile(url));
  } catch {
    // First build: nothing to compare against.
  }
  if (previous !== null && Buffer.compare(Buffer.from(previous), Buffer.from(bytes)) === 0) continue;
  const target = fileURLToPath(url);
  if (check) {
    process.stderr.write(`build-kernel: ${target} is stale; run node scripts/build-kernel.mjs\n`);
    stale = true;
  } else {
    await writeFile(url, bytes);
    process.stdout.write(`build-kernel: wrote ${target} (${bytes.length} bytes)\n`);
  }
}
if (stale) process.exit(1);
