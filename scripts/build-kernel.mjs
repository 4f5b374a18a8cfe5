// Assembles src/legs/vector/kernel.wat into kernel.wasm next to it.
// The .wasm is committed because bundlers and workerd import it as a file; this script keeps it in
// step with the source. Output is deterministic (no debug names, canonical LEBs), so rebuilding an
// unchanged .wat leaves the file byte-identical and untouched.
// `--check` exits 1 instead of writing when the committed .wasm is stale (for CI).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const watUrl = new URL('../src/legs/vector/kernel.wat', import.meta.url);
const wasmUrl = new URL('../src/legs/vector/kernel.wasm', import.meta.url);
const check = process.argv.includes('--check');

const wabt = await wabtInit();
const source = await readFile(watUrl, 'utf8');
const module = wabt.parseWat('kernel.wat', source, { simd: true });
let bytes;
try {
  module.resolveNames();
  module.validate();
  bytes = module.toBinary({ log: false, canonicalize_lebs: true, relocatable: false, write_debug_names: false }).buffer;
} finally {
  module.destroy();
}

let previous = null;
try {
  previous = new Uint8Array(await readFile(wasmUrl));
} catch {
  // First build: nothing to compare against.
}
const same = previous !== null && Buffer.compare(Buffer.from(previous), Buffer.from(bytes)) === 0;
const target = fileURLToPath(wasmUrl);

if (check) {
  if (!same) {
    process.stderr.write(`build-kernel: ${target} is stale; run node scripts/build-kernel.mjs\n`);
    process.exit(1);
  }
} else if (!same) {
  await writeFile(wasmUrl, bytes);
  process.stdout.write(`build-kernel: wrote ${target} (${bytes.length} bytes)\n`);
}
