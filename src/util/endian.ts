/** Whether typed arrays on this host store numbers little-endian, as every saved format here does. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

type Numbers = Int32Array | Uint32Array | Float32Array | Float64Array;

/** Copies `count` numbers of `source` into `target` at byte `offset`, little-endian on any host. */
export function writeLE(target: Uint8Array, offset: number, source: Numbers, count = source.length): void {
  const size = source.BYTES_PER_ELEMENT;
  if (LITTLE_ENDIAN) {
    target.set(new Uint8Array(source.buffer, source.byteOffset, count * size), offset);
    return;
  }
  const view = new DataView(target.buffer, target.byteOffset + offset, count * size);
  for (let i = 0; i < count; i++) {
    if (source instanceof Int32Array) view.setInt32(i * 4, source[i]!, true);
    else if (source instanceof Uint32Array) view.setUint32(i * 4, source[i]!, true);
    else if (source instanceof Float32Array) view.setFloat32(i * 4, source[i]!, true);
    else view.setFloat64(i * 8, source[i]!, true);
  }
}

/** Reads `count` little-endian numbers of `target`'s kind at byte `offset` of `source` into `target`. */
export function readLE(source: Uint8Array, offset: number, target: Numbers, count = target.length): void {
  const size = target.BYTES_PER_ELEMENT;
  if (LITTLE_ENDIAN) {
    new Uint8Array(target.buffer, target.byteOffset, count * size).set(source.subarray(offset, offset + count * size));
    return;
  }
  const view = new DataView(source.buffer, source.byteOffset + offset, count * size);
  for (let i = 0; i < count; i++) {
    if (target instanceof Int32Array) target[i] = view.getInt32(i * 4, true);
    else if (target instanceof Uint32Array) target[i] = view.getUint32(i * 4, true);
    else if (target instanceof Float32Array) target[i] = view.getFloat32(i * 4, true);
    else target[i] = view.getFloat64(i * 8, true);
  }
}
