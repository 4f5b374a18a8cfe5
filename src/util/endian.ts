/** Whether typed arrays on this host store numbers little-endian, as every saved format here does. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Copies `count` 32-bit numbers into `target` at byte `offset`, little-endian on any host. */
export function writeLE(target: Uint8Array, offset: number, source: Int32Array | Float32Array, count: number): void {
  if (LITTLE_ENDIAN) {
    target.set(new Uint8Array(source.buffer, source.byteOffset, count * 4), offset);
    return;
  }
  const view = new DataView(target.buffer, target.byteOffset + offset, count * 4);
  const int = source instanceof Int32Array;
  for (let i = 0; i < count; i++) {
    if (int) view.setInt32(i * 4, source[i]!, true);
    else view.setFloat32(i * 4, source[i]!, true);
  }
}

/** Reads `count` little-endian 32-bit numbers at byte `offset` of `source` into `target`. */
export function readLE(source: Uint8Array, offset: number, target: Int32Array | Float32Array, count: number): void {
  if (LITTLE_ENDIAN) {
    new Uint8Array(target.buffer, target.byteOffset, count * 4).set(source.subarray(offset, offset + count * 4));
    return;
  }
  const view = new DataView(source.buffer, source.byteOffset + offset, count * 4);
  const int = target instanceof Int32Array;
  for (let i = 0; i < count; i++) target[i] = int ? view.getInt32(i * 4, true) : view.getFloat32(i * 4, true);
}
