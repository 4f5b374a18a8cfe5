/** Workers (and wrangler) import a `.wasm` file as a WebAssembly.Module compiled by the platform. */
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
