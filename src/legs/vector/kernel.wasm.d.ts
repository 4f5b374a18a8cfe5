/**
 * `hybridmind/kernel.wasm`: the vector kernel as a WebAssembly module. Workers and wrangler compile
 * an imported `.wasm` at deploy time; hand it to `open({ vectorKernel })`.
 */
declare const kernel: WebAssembly.Module;
export default kernel;
