/** One transformers.js progress event as the worker forwards it. */
export interface ModelProgressEvent {
  status: string;
  file?: string;
  loaded?: number;
  total?: number;
}

export interface ModelProgressView {
  /** 0–100, never lower than a value shown before, and 100 only once the model is ready. */
  percent: number;
  filesDone: number;
  files: number;
  loaded: number;
  total: number;
}

/**
 * Model download progress over all files at once. transformers.js reports each file on its own
 * (and its `progress_total` restarts whenever a new file joins), so a bar driven by either jumps
 * back and reads 100% between files. Here the bar is bytes loaded over bytes known of every file
 * seen so far, it only moves forward, and it stays below 100 until the model reports it is ready.
 */
export class ModelProgress {
  readonly #files = new Map<string, { loaded: number; total: number; done: boolean }>();
  #shown = 0;
  #ready = false;

  /**
   * Files known before they start, with their sizes: the bar then measures against the whole
   * download from the first byte, instead of reading high while only the small files are known.
   */
  expect(files: Record<string, number>): void {
    for (const [file, total] of Object.entries(files)) {
      const f = this.#files.get(file) ?? { loaded: 0, total: 0, done: false };
      f.total = Math.max(f.total, total);
      this.#files.set(file, f);
    }
  }

  update(event: ModelProgressEvent): ModelProgressView {
    const file = event.file;
    if (file && ['initiate', 'download', 'progress', 'done'].includes(event.status)) {
      const f = this.#files.get(file) ?? { loaded: 0, total: 0, done: false };
      if (typeof event.total === 'number' && event.total > 0) f.total = event.total;
      if (typeof event.loaded === 'number') f.loaded = Math.max(f.loaded, event.loaded);
      if (event.status === 'done') {
        f.done = true;
        f.loaded = Math.max(f.loaded, f.total);
      }
      this.#files.set(file, f);
    }
    if (event.status === 'ready') this.#ready = true;
    return this.view();
  }

  /** The model is loaded: nothing more will join, so the bar may read 100%. */
  complete(): ModelProgressView {
    this.#ready = true;
    return this.view();
  }

  view(): ModelProgressView {
    let loaded = 0;
    let total = 0;
    let filesDone = 0;
    for (const f of this.#files.values()) {
      loaded += Math.min(f.loaded, f.total);
      total += f.total;
      if (f.done) filesDone++;
    }
    // Files are fetched one after another, so "every file seen is done" can still be followed by
    // another: only the model's own ready signal means the download is over.
    const raw = this.#ready ? 100 : total > 0 ? Math.min(99, (loaded / total) * 100) : 0;
    this.#shown = Math.max(this.#shown, raw);
    return { percent: this.#shown, filesDone, files: this.#files.size, loaded, total };
  }
}
