/**
 * A timeout for background work that must not keep a Node process alive: unref'd where the
 * runtime's timers can be (Node, Bun), a plain timeout elsewhere (browsers, Deno, workerd).
 */
export function backgroundTimeout(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(fn, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
