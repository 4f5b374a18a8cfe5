/** Number and table formatting shared by the benchmark reports. */
export const ms = (x: number | null | undefined) => (x == null || Number.isNaN(x) ? '–' : x < 1 ? x.toFixed(3) : x < 100 ? x.toFixed(2) : x.toFixed(0));
export const mib = (x: number | null | undefined) => (x == null ? '–' : (x / 2 ** 20).toFixed(1));
export const num = (x: number | null | undefined, d = 3) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));
export const table = (head: string[], rows: string[][]) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
