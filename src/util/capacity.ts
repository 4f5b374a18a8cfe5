/**
 * How many rows a saved value with per-row sections has room for (the vector codes, the
 * catalog): `count` rounded up to a sixteenth of its power of two, at least 64. A store saves
 * these values again after every quiet period; with sections sized by the count, one new memory
 * moved every byte after the first section and SQLite rewrote the whole value. With room, the
 * sections stay put and SQLite, overwriting a part of the same size, writes only the pages that
 * differ; the room wasted stays under ~6%, and the sections move (the value is written whole)
 * once per that many new memories, every 4,096 at 100k. Part of both formats: readers compute it
 * from the saved count, so changing it needs new format versions.
 */
export function capacityOf(count: number): number {
  if (count === 0) return 0;
  // The power of two from the bits, not Math.log2: a value saved by one engine is read by another.
  const step = Math.max(64, 2 ** (31 - Math.clz32(count) - 4));
  return Math.ceil(count / step) * step;
}
