/** hnswlib-wasm's internal Emscripten chunk (pinned 0.8.2): a MODULARIZE factory. */
declare module 'hnswlib-wasm/dist/hnswlib-317962d7.js' {
  const factory: (moduleArg: object) => Promise<unknown>;
  export default factory;
}
