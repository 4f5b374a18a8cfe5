import type { MemoryEvent, RemoteMemory } from '../src/client/index.js';
import { $, h, notify } from './dom.js';
import { ModelProgress } from './model-progress.js';

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);

/** What the worker's default model (all-MiniLM-L6-v2, q8) fetches from `/models/`. */
const MODEL_DIR = '/models/Xenova/all-MiniLM-L6-v2/';
const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

/**
 * The header badges and the stats card. Each line is rewritten from the event or the stats call
 * that makes it true, so nothing stays on screen after the state it describes has passed.
 */
export class StatusPanel {
  readonly #progress = new ModelProgress();
  readonly #mem: () => RemoteMemory | null;
  #statsQueued = false;

  constructor(mem: () => RemoteMemory | null) {
    this.#mem = mem;
  }

  /**
   * Asks the server for the model files' sizes up front (HEAD, no download), so the bar measures
   * the whole download from the start. Without them it measures the files seen so far.
   */
  async learnModelSize(): Promise<void> {
    const sizes: Record<string, number> = {};
    await Promise.all(MODEL_FILES.map(async (file) => {
      const res = await fetch(`${MODEL_DIR}${file}`, { method: 'HEAD' }).catch(() => null);
      const size = Number(res?.ok ? res.headers.get('content-length') : 0);
      if (size > 0) sizes[file] = size;
    }));
    if (Object.keys(sizes).length === MODEL_FILES.length) this.#progress.expect(sizes);
  }

  onEvent(e: MemoryEvent): void {
    if (e.type === 'role') {
      $('role').textContent = e.role === 'owner' ? `store “${e.store}” · this tab owns it` : `store “${e.store}” · via another tab`;
      $('role').title = $('role').textContent;
      $('role').className = 'badge ok';
    } else if (e.type === 'model' && !e.status.startsWith('log:')) {
      const v = this.#progress.update(e);
      if (v.files === 0) return;
      $('model').textContent = `model: loading ${Math.floor(v.percent)}% · ${v.filesDone}/${v.files} files · ${mb(v.loaded)} of ${mb(v.total)} MB`;
      $('model-bar').style.width = `${v.percent}%`;
      $('model-bar').parentElement!.setAttribute('aria-valuenow', String(Math.floor(v.percent)));
    } else if (e.type === 'model-ready') {
      this.#progress.complete();
      $('model').textContent = `model: ${e.id.split('/')[1]} · ready in ${e.ms} ms`;
      $('model').className = 'badge ok';
      $('model-bar').style.width = '100%';
      $('model-bar').parentElement!.setAttribute('aria-valuenow', '100');
    } else if (e.type === 'model-error') {
      $('model').textContent = 'model: failed — search by words and links only';
      $('model').className = 'badge warn';
      notify(`The model failed to load: ${e.message}`, 'error');
    } else if (e.type === 'enrichment') {
      const failed = e.failed ? `, ${e.failed} failed` : '';
      $('enrich').textContent = e.pending > 0 ? `embedding… ${e.done} done, ${e.pending} left${failed}` : `embeddings: all done${failed}`;
      $('enrich').className = `badge ${e.pending > 0 || e.failed ? 'warn' : 'ok'}`;
      this.refreshStats();
    } else if (e.type === 'changed') {
      this.refreshStats();
    }
  }

  /** Coalesces bursts of events (an import, enrichment batches) into one stats call at a time. */
  refreshStats(): void {
    if (this.#statsQueued) return;
    this.#statsQueued = true;
    queueMicrotask(async () => {
      const mem = this.#mem();
      try {
        if (mem) await this.#renderStats(mem);
      } finally {
        this.#statsQueued = false;
      }
    });
  }

  async #renderStats(mem: RemoteMemory): Promise<void> {
    const s = await mem.stats();
    const notYet = s.memories - s.readiness.semantic;
    const rows: Array<[string, string | number]> = [
      ['memories', s.memories], ['edges', s.edges], ['current', s.current], ['historical', s.historical],
      ['searchable by meaning', notYet > 0 ? `${s.readiness.semantic} of ${s.memories} (${notYet} waiting)` : `all ${s.memories}`],
      ['vector index', `${s.dim ?? '–'}-d · ${(s.vectorBytes / 1024).toFixed(0)} KiB`],
      ['storage', s.storage], ['schema', `v${s.schemaVersion}`],
    ];
    $('stats').replaceChildren(...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v, 'data-key': k })]));
  }
}
