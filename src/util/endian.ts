/** Whether typed arrays on this host store numbers little-endian, as every saved format here does. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
