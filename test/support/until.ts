/**
 * Turns the event loop until `done()` holds, and fails naming `what` (by default the test's own
 * source of `done`) if it has not after `limitMs`. Background work (an open's fill, a quiet save) runs on timers, which a loaded machine
 * (CI running its test files side by side) delays past any fixed wait; a fixed wait is only right
 * for proving that something did not happen.
 */
export async function until(done: () => boolean, what = String(done), limitMs = 10_000): Promise<void> {
  const limit = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > limit) throw new Error(`still waiting after ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
