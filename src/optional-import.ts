import { HybridMindError } from './errors.js';

/**
 * Loads an optional peer dependency (one the package does not install for everyone, e.g.
 * `@huggingface/transformers`) when a feature first needs it. The specifier is a parameter, so
 * bundlers leave the import for run time instead of failing a build that never takes this path.
 * A missing package becomes MISSING_DEPENDENCY naming what to install; any other failure while
 * loading it is rethrown as is.
 *
 * @example
 * const sdk = await optionalImport<typeof import('@modelcontextprotocol/sdk/server/index.js')>(
 *   'createMcpServer', '@modelcontextprotocol/sdk/server/index.js', '@modelcontextprotocol/sdk');
 */
export async function optionalImport<T>(method: string, specifier: string, packageName: string): Promise<T> {
  try {
    return (await import(/* @vite-ignore */ specifier)) as T;
  } catch (error) {
    if (isNotFound(error, packageName)) {
      throw new HybridMindError('MISSING_DEPENDENCY', method,
        `needs the optional package ${JSON.stringify(packageName)}, which is not installed; run \`npm install ${packageName}\``, { cause: error });
    }
    throw error;
  }
}

/** Node says ERR_MODULE_NOT_FOUND, Deno and bundlers' runtimes say it in words; each names the package. */
function isNotFound(error: unknown, packageName: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  const notFound = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /cannot find (package|module)|not found|failed to resolve/i.test(error.message);
  return notFound && error.message.includes(packageName);
}
