/** Small DOM helpers shared by the demo's panels. */

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`demo: no element #${id}`);
  return node as T;
};

/** Creates an element with text and attributes; text goes through textContent, never innerHTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean> = {},
  ...children: Array<Node | string | null | undefined | false>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false) continue;
    if (k === 'class') node.className = String(v);
    else if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

export function describeError(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ? `${e.code}: ${e.message}` : String(error);
}

export const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The page's one notice line: it sits in the layout under the header (never over content) and
 * says what the last action did. Errors stay until the next notice; other notices fade.
 */
export function notify(message: string, kind: 'info' | 'error' = 'info'): void {
  const line = $('notice');
  line.textContent = message;
  // On a phone the line is cut to one row; the whole message stays in its tooltip.
  line.title = message;
  line.className = `notice show ${kind}`;
  window.clearTimeout(Number(line.dataset.timer ?? 0));
  if (kind === 'info') line.dataset.timer = String(window.setTimeout(() => line.classList.remove('show'), 8000));
}

/** Lets the browser paint and handle input between chunks of work. */
export const yieldToUi = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
