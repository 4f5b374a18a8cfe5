import { HybridMindError } from '../errors.js';

/**
 * SHA-256 through WebCrypto: the one digest available alike in browsers, workers, Node 20,
 * Deno and Cloudflare Workers, with no dependency.
 */
export async function sha256Hex(method: string, bytes: Uint8Array): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new HybridMindError('UNSUPPORTED', method, 'snapshots need WebCrypto (crypto.subtle), which this runtime lacks');
  // digest() wants an ArrayBuffer-backed view; anything else (e.g. shared memory) is copied.
  const view = bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
  const digest = new Uint8Array(await subtle.digest('SHA-256', view));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
