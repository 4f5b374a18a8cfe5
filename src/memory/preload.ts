/**
 * Saved indexes decoded ahead of an open, while something else holds the open up. At a cold open
 * in the browser worker, SQLite-WASM's compile and the OPFS pool's access handles keep the thread
 * waiting ~40 ms (a 100k store, Chromium), and decoding the lexical index, entity index and
 * catalog is ~60 ms of work that used to follow those waits. Started as soon as the store's
 * derived files are open, each value decodes in a task of its own, which runs while the thread
 * would otherwise wait. Every value keeps the stamp its file held; the open takes it only for
 * that stamp (`loadSaved`), so a value decoded for another generation is dropped, never used.
 */
import type { LegFactory } from '../legs/types.js';
import type { DerivedStore } from '../storage/driver.js';
import { nextSlice } from '../util/slices.js';
import { CATALOG } from './saved-catalog.js';
import { ENTITIES, LEXICAL, type Saved } from './saved-lexical.js';

/** In the order `Indexes.rebuild` reads them, so the first it asks for is the likeliest done. */
const EARLY: ReadonlyArray<Saved<unknown>> = [LEXICAL, ENTITIES, CATALOG];

/** A decoded value and the stamp its bytes held; null when there was none or it did not decode. */
type Decoded = { stamp: string; value: unknown } | null;

/**
 * `store` with its lexical index, entity index and catalog decoding from now on, each in a task of
 * its own (with `legs`' loaders, which the open's must be), for the open to take (`DerivedStore.early`).
 * A value not decoded yet when the open asks for it is decoded then; one that did not decode is
 * read again by the open, which reports why.
 */
export function preloadingStore(store: DerivedStore, legs: LegFactory): DerivedStore {
  const decoded = new Map<string, Decoded>();
  const pending = new Set(EARLY.map((what) => what.name));
  const decode = (what: Saved<unknown>): void => {
    if (!pending.delete(what.name)) return;
    let value: Decoded = null;
    try {
      const stamp = store.stampOf(what.name);
      const parts = stamp === null ? null : store.read(what.name, stamp);
      if (stamp !== null && parts !== null) value = { stamp, value: what.load(legs, parts) };
    } catch {
      // Read again by the open, which says why it does not load (`loadSaved`).
    }
    decoded.set(what.name, value);
  };
  // Forgotten, not decoded, once its bytes change or go.
  const forget = (name: string) => {
    pending.delete(name);
    decoded.delete(name);
  };
  const forgetAll = () => {
    pending.clear();
    decoded.clear();
  };
  const next = (i: number) => {
    if (i >= EARLY.length || pending.size === 0) return;
    decode(EARLY[i]!);
    nextSlice(() => next(i + 1));
  };
  nextSlice(() => next(0));
  return {
    stampOf: (name) => store.stampOf(name),
    read: (name, stamp) => store.read(name, stamp),
    write(name, stamp, bytes) {
      forget(name);
      store.write(name, stamp, bytes);
    },
    clear() {
      forgetAll();
      store.clear?.();
    },
    close() {
      forgetAll();
      store.close?.();
    },
    early: {
      take(name, stamp) {
        const what = EARLY.find((w) => w.name === name);
        if (what === undefined) return undefined;
        // Not decoded yet, and for another stamp: the open rebuilds it, so it is not decoded at all.
        if (pending.has(name) && store.stampOf(name) !== stamp) {
          forget(name);
          return undefined;
        }
        decode(what);
        const value = decoded.get(name);
        forget(name);
        return value && value.stamp === stamp ? value.value : undefined;
      },
    },
  };
}
