import type { RemoteMemory } from '../src/client/index.js';
import type { MemoryInput } from '../src/types.js';
import { $, describeError, h, notify } from './dom.js';
import { parseChat, parseInput, parseMarkdown } from './import-parse.js';
import { importMemories } from './import-run.js';
import { SAMPLE_EDGES, SAMPLE_MEMORIES } from './sample.js';

/** Loads the bundled sample project: its memories, then its edges. */
export async function loadSample(mem: RemoteMemory): Promise<void> {
  const existing = new Set((await Promise.all(SAMPLE_MEMORIES.map((m) => mem.get(m.id!)))).filter(Boolean).map((r) => r!.id));
  const missing = SAMPLE_MEMORIES.filter((m) => !existing.has(m.id!));
  if (missing.length > 0) await mem.storeMany(missing);
  const have = new Set((await Promise.all(SAMPLE_MEMORIES.map((m) => mem.edges(m.id!, { direction: 'out' })))).flat().map((e) => `${e.from} ${e.type} ${e.to}`));
  const edges = SAMPLE_EDGES.filter(([from, to, type]) => !have.has(`${from} ${type} ${to}`)).map(([from, to, type]) => ({ from, to, type }));
  if (edges.length > 0) await mem.relateMany(edges);
  notify(`Sample project loaded: ${SAMPLE_MEMORIES.length} memories, ${SAMPLE_EDGES.length} relations (${missing.length} of the memories were new)`);
}

/**
 * The "bring your data" panel: paste or drop Markdown notes, chat exports (JSON / JSONL) or a
 * `.mind.zip`; add one memory by hand; load the sample; export a snapshot.
 */
export class ImportPanel {
  readonly #mem: RemoteMemory;
  readonly #afterRestore: () => void;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(mem: RemoteMemory, afterRestore: () => void) {
    this.#mem = mem;
    this.#afterRestore = afterRestore;
    $('paste-import').addEventListener('click', () => void this.#importPasted());
    $<HTMLInputElement>('files').addEventListener('change', (e) => {
      const input = e.target as HTMLInputElement;
      void this.#importFiles([...(input.files ?? [])]).finally(() => (input.value = ''));
    });
    const zone = $('drop');
    zone.addEventListener('dragover', (e) => {
      e.preventDefault();
      zone.classList.add('over');
    });
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      zone.classList.remove('over');
      void this.#importFiles([...(e.dataTransfer?.files ?? [])]);
    });
    $('sample').addEventListener('click', async () => {
      try {
        await loadSample(mem);
      } catch (error) {
        notify(describeError(error), 'error');
      }
    });
    $('export').addEventListener('click', () => void this.#export());
    $('add-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.#addOne();
    });
  }

  async #importPasted(): Promise<void> {
    const text = $<HTMLTextAreaElement>('paste').value;
    if (!text.trim()) return notify('Paste some Markdown notes or chat JSON first.', 'error');
    const format = $<HTMLSelectElement>('paste-format').value;
    try {
      const looksJson = /^\s*[[{]/.test(text);
      const memories = format === 'chat' || (format === 'auto' && looksJson) ? parseChat(text, 'pasted chat') : parseMarkdown(text, 'pasted');
      if (await this.#store(memories, 'pasted text')) $<HTMLTextAreaElement>('paste').value = '';
    } catch (error) {
      notify(describeError(error), 'error');
    }
  }

  async #importFiles(files: File[]): Promise<void> {
    for (const file of files) {
      try {
        const parsed = parseInput(file.name, new Uint8Array(await file.arrayBuffer()));
        if (parsed.type === 'snapshot') {
          this.#progress(`Restoring ${file.name}…`, 0, 1);
          await this.#mem.restoreSnapshot(parsed.bytes);
          this.#progress(`Restored ${file.name}: the store now holds its contents`, 1, 1);
          notify(`Restored ${file.name}`);
          this.#afterRestore();
        } else {
          await this.#store(parsed.memories, file.name);
        }
      } catch (error) {
        notify(`${file.name}: ${describeError(error)}`, 'error');
      }
    }
  }

  /** Imports run one after another: a second drop waits for the first instead of interleaving. */
  #store(memories: MemoryInput[], source: string): Promise<boolean> {
    if (memories.length === 0) {
      notify(`${source}: nothing to import`, 'error');
      return Promise.resolve(false);
    }
    const run = this.#queue.then(async () => {
      const result = await importMemories(this.#mem, memories, (p) => this.#progress(`Importing ${source}: ${p.done} of ${p.total}`, p.done, p.total));
      const skipped = result.skipped ? `, ${result.skipped} already there (same id) skipped` : '';
      this.#progress(`Imported ${result.stored} memories from ${source}${skipped}; embeddings follow in the background`, 1, 1);
      notify(`Imported ${result.stored} memories from ${source}${skipped}`);
      return true;
    });
    this.#queue = run.catch(() => false);
    return run;
  }

  #progress(label: string, done: number, total: number): void {
    const bar = $<HTMLProgressElement>('import-progress');
    bar.max = Math.max(total, 1);
    bar.value = done;
    bar.hidden = false;
    $('import-status').textContent = label;
  }

  async #export(): Promise<void> {
    try {
      const bytes = await this.#mem.exportSnapshot();
      const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/zip' }));
      const a = h('a', { href: url, download: `hybridmind-${new Date().toISOString().slice(0, 10)}.mind.zip` });
      a.click();
      // Revoked a moment later: revoking at once can cancel the download it just started.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      notify(`Exported ${(bytes.byteLength / 1024).toFixed(0)} KiB`);
    } catch (error) {
      notify(describeError(error), 'error');
    }
  }

  async #addOne(): Promise<void> {
    const value = (id: string) => $<HTMLInputElement>(id).value.trim();
    const text = $<HTMLTextAreaElement>('add-text').value.trim();
    try {
      const stored = await this.#mem.store({ text, ...(value('add-id') ? { id: value('add-id') } : {}), ...(value('add-kind') ? { kind: value('add-kind') } : {}), ...(value('add-date') ? { createdAt: value('add-date') } : {}) });
      notify(`Stored ${stored}; its embedding follows in the background`);
      $<HTMLFormElement>('add-form').reset();
    } catch (error) {
      notify(describeError(error), 'error');
    }
  }
}
