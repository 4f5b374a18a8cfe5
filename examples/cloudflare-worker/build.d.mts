import type { Metafile } from 'esbuild';

export declare const FORBIDDEN: string[];
/**
 * Bundles worker.ts into `outdir` (default ./dist) as worker.js + kernel.wasm and creates `outdir/../data`;
 * throws if a forbidden package got in. `fromSource` maps `hybridmind/*` to this repository's src/.
 */
export declare function buildWorker(outdir?: string, options?: { fromSource?: boolean }): Promise<{ outdir: string; metafile: Metafile; bytes: number }>;
