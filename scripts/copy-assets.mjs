// tsc emits only JavaScript and declarations; the wasm kernel sits beside its loader at run time.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

const assets = ['legs/vector/kernel.wasm'];
for (const asset of assets) {
  await mkdir(dirname(`dist/${asset}`), { recursive: true });
  await copyFile(`src/${asset}`, `dist/${asset}`);
}
