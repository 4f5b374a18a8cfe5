import type { SqlDriver } from '../../src/index.js';

/** `inner` as it is (a real driver), noting in `noted` every statement that matches `pattern`. */
export function notingDriver(inner: SqlDriver, pattern: RegExp, noted: string[]): SqlDriver {
  const note = (sql: string) => pattern.test(sql) && noted.push(sql);
  return {
    name: inner.name,
    exec: (sql, params) => (note(sql), inner.exec(sql, params)),
    all: (sql, params) => (note(sql), inner.all(sql, params)),
    transaction: (fn) => inner.transaction(fn),
    close: () => inner.close(),
    ...(inner.serialize ? { serialize: () => inner.serialize!() } : {}),
  };
}
