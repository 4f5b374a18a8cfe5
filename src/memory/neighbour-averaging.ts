import { invalid } from '../errors.js';
import { normalizeInPlace } from '../util/vector.js';
import { checkIntInRange, checkKeys, isPlainObject, keysOf } from './validate.js';

/**
 * The seed reference's ingest-time smoothing, kept as an option: the vector a memory is searched
 * by becomes normalise((1 − weight)·raw + weight·mean of its k nearest neighbours' raw vectors),
 * which pulls a memory toward its neighbourhood. The model's raw vector is kept beside it, so
 * turning the option off (and `reembed()`) loses nothing. Off by default.
 */
export interface NeighbourAveraging {
  /** Share of the neighbours' mean. Default 0.3. */
  weight: number;
  /** Neighbours averaged. Default 5. */
  k: number;
}

export type NeighbourAveragingOption = boolean | { [K in keyof NeighbourAveraging]?: NeighbourAveraging[K] | undefined };

export function resolveNeighbourAveraging(method: string, value: unknown): NeighbourAveraging | null {
  if (value === undefined || value === false) return null;
  if (value === true) return { weight: 0.3, k: 5 };
  if (!isPlainObject(value)) throw invalid(method, 'options.neighbourAveraging must be true, false or { weight, k }', value);
  checkKeys(method, 'options.neighbourAveraging', value, keysOf<NeighbourAveraging>({ weight: true, k: true }));
  const out = { weight: 0.3, k: 5 };
  for (const [key, v] of Object.entries(value)) {
    if (key === 'weight') {
      if (typeof v !== 'number' || !(v > 0 && v < 1)) throw invalid(method, 'options.neighbourAveraging.weight must be a number between 0 and 1', v);
      out.weight = v;
    } else {
      out.k = checkIntInRange(method, 'options.neighbourAveraging.k', v, 1, 100);
    }
  }
  return out;
}

/** normalise((1 − weight)·raw + weight·mean(neighbours)); the raw vector itself when there are none. */
export function averageWithNeighbours(raw: Float32Array, neighbours: readonly Float32Array[], weight: number): Float32Array {
  if (neighbours.length === 0) return raw;
  const out = new Float32Array(raw.length);
  const share = weight / neighbours.length;
  for (let i = 0; i < raw.length; i++) {
    let sum = 0;
    for (const n of neighbours) sum += n[i]!;
    out[i] = (1 - weight) * raw[i]! + share * sum;
  }
  normalizeInPlace(out);
  return out;
}
