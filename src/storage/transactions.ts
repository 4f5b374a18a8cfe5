/**
 * The `SqlDriver.transaction` contract for drivers that speak SQL transactions: `fn` inside
 * BEGIN IMMEDIATE … COMMIT, rolled back if it throws, and calls nested inside an open
 * transaction join it.
 */
export class Transactions {
  readonly #exec: (sql: string) => void;
  #depth = 0;

  constructor(exec: (sql: string) => void) {
    this.#exec = exec;
  }

  run<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    this.#exec('BEGIN IMMEDIATE');
    this.#depth++;
    try {
      const result = fn();
      this.#exec('COMMIT');
      return result;
    } catch (error) {
      try {
        this.#exec('ROLLBACK');
      } catch {
        // The original error explains the failure; a failed rollback means SQLite already rolled back.
      }
      throw error;
    } finally {
      this.#depth--;
    }
  }
}
