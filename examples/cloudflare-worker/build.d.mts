import type { Metafile } from 'esbuild';

export declare const FORBIDDEN: string[];
/** Bundles worker.ts into `outdir` (default ./dist) as worker.js + kernel.wasm; throws if a forbidden package got in. */
export declare function buildWorker(outdir?: string): Promise<{ outdir: string; metafile: Metafile; bytes: number }>;
