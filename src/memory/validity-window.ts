/**
 * The latest recording and start of validity and the earliest end of it over some memories: what
 * `Catalog.acceptsEvery` compares a query's reference time with. A removal leaves a window as it
 * was, so it can only be wider than the memories left: it may make `acceptsEvery` say false when
 * every one would pass, never true when one would not.
 */
export interface ValidityWindow {
  recorded: number;
  from: number;
  to: number;
}

export function emptyWindow(): ValidityWindow {
  return { recorded: -Infinity, from: -Infinity, to: Infinity };
}

/** Takes in one memory; `validTo` NaN (or +Infinity) is "still true" and narrows nothing. */
export function widen(w: ValidityWindow, createdAt: number, validFrom: number, validTo: number): void {
  if (createdAt > w.recorded) w.recorded = createdAt;
  if (validFrom > w.from) w.from = validFrom;
  if (validTo < w.to) w.to = validTo;
}
