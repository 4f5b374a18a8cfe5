/** The bundled WASM-SIMD kernel, which every test host (Node 20 and later) must be able to load. */
import { loadVectorKernel, type VectorKernel } from '../../src/legs/vector/kernel.js';

export async function simdKernel(): Promise<VectorKernel> {
  const loaded = await loadVectorKernel();
  if (loaded === null) throw new Error('the SIMD kernel must load in Node 20');
  return loaded;
}
