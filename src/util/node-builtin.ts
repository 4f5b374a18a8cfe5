/**
 * A Node built-in, loaded when Node-only code first runs, for modules that browser bundles also
 * reach (the main entry loads them lazily: local model folders, snapshot files, the bundled
 * kernel's bytes, hnswlib's source). The specifier is a parameter, so neither the package's own
 * worker build nor an app's bundler sees a literal to resolve: with `import('node:fs/promises')`
 * an app's `vite build` warned that it had externalized the module for browser compatibility,
 * naming this package's file. Deno answers `node:` specifiers too.
 *
 * @example
 * const { readFile } = await nodeBuiltin<typeof import('node:fs/promises')>('node:fs/promises');
 */
export function nodeBuiltin<T>(specifier: `node:${string}`): Promise<T> {
  return import(/* @vite-ignore */ specifier) as Promise<T>;
}
