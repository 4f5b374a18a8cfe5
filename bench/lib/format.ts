/** Number and table formatting shared by the benchmark reports. */
import type { Machine } from './machine.js';

export const ms = (x: number | null | undefined) => (x == null || Number.isNaN(x) ? '–' : x < 1 ? x.toFixed(3) : x < 100 ? x.toFixed(2) : x.toFixed(0));
export const mib = (x: number | null | undefined) => (x == null ? '–' : (x / 2 ** 20).toFixed(1));
export const num = (x: number | null | undefined, d = 3) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));
export const table = (head: string[], rows: string[][]) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

/** "Intel(R) Xeon(R) Processor, 2 cores, 24 GiB, L3 480 MiB, linux 6.18": CPU, cores, memory, cache and system. */
export function describeMachine(m: Omit<Machine, 'node' | 'versions'>): string {
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB${m.l3MiB === undefined ? '' : `, L3 ${m.l3MiB} MiB`}, ${m.platform}`;
}
