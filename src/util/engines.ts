/**
 * Whether `version` (`process.versions.node`, e.g. `20.20.2`) is in a package's `engines.node`
 * range, for the forms native packages write: alternatives joined by `||`, each `>=20`, `>=22.5.0`,
 * `22.x`, `22.5.x`, `^22.5.0` or a bare `22`. Null for any other form, so a caller never refuses a
 * runtime on a range it did not read.
 *
 * @example
 * nodeInRange('>=22', '20.20.2') // false
 * nodeInRange('20.x || 22.x || 24.x', '20.20.2') // true
 */
export function nodeInRange(range: string, version: string): boolean | null {
  const have = parts(version);
  if (have === null) return null;
  let inRange = false;
  for (const alternative of range.split('||')) {
    const accepts = acceptsVersion(alternative.trim(), have);
    if (accepts === null) return null;
    inRange ||= accepts;
  }
  return inRange;
}

function acceptsVersion(alternative: string, have: [number, number, number]): boolean | null {
  const atLeast = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(alternative);
  if (atLeast) return compare(have, parts(atLeast[1]!)!) >= 0;
  const caret = /^\^(\d+(?:\.\d+){0,2})$/.exec(alternative);
  if (caret) {
    const low = parts(caret[1]!)!;
    return have[0] === low[0] && compare(have, low) >= 0;
  }
  // `22`, `22.x`, `22.5.x`: every version that starts with the numbers given.
  const prefix = /^(\d+)(?:\.(\d+|x))?(?:\.x)?$/.exec(alternative);
  if (prefix) return have[0] === Number(prefix[1]) && (prefix[2] === undefined || prefix[2] === 'x' || have[1] === Number(prefix[2]));
  return null;
}

function parts(version: string): [number, number, number] | null {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version);
  return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : null;
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
