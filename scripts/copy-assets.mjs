// tsc emits only JavaScript and declarations; the wasm kernel (and its hand-written types) sit beside its loader.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

const assets = ['legs/vector/kernel.wasm', 'legs/vector/kernel-threads.wasm', 'legs/vector/kernel.wasm.d.ts'];
for (const asset of assets) {
  await mkdir(dirname(`dist/${asset}`), { recursive: true });
  await copyFile(`src/${asset}`, `dist/${asset}`);
}
