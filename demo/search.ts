import type { RemoteMemory } from '../src/client/index.js';
import { RECALL_DEFAULTS } from '../src/memory/recall-options.js';
import type { Hit, LegName, RecallMode } from '../src/types.js';
import { $, day, describeError, h, notify } from './dom.js';
import { fmt, LEG_NAMES, LEGS, surfaceWords } from './explain-model.js';
import { renderExplanation, type AnswerContext } from './explain-view.js';

/** The weights rank fusion was chosen with (the library's previous defaults, before score fusion). */
export const RRF_WEIGHTS: Readonly<Record<LegName, number>> = { vector: 1, lexical: 1, graph: 1.5, time: 0.1 };

const input = (id: string) => $<HTMLInputElement>(id);

/**
 * The search panel: runs recall with the page's settings, lists the hits with per-leg chips and
 * an inline explanation each, and re-runs itself when the store changes under it (embeddings
 * arrive, a memory is edited), keeping the selection and the open explanations.
 */
export class SearchPanel {
  readonly #mem: RemoteMemory;
  readonly #onSelect: (id: string | null) => void;
  #answer: AnswerContext | null = null;
  /** The question last submitted: background refreshes re-ask it, not a half-typed new one. */
  #query = '';
  #metaBase = '';
  #selected: string | null = null;
  readonly #open = new Set<string>();
  #running = false;
  #again = false;

  constructor(mem: RemoteMemory, onSelect: (id: string | null) => void) {
    this.#mem = mem;
    this.#onSelect = onSelect;
  }

  get selected(): string | null {
    return this.#selected;
  }

  weights(): Record<LegName, number> {
    return Object.fromEntries(LEGS.map((leg) => [leg, Number(input(`w-${leg}`).value)])) as Record<LegName, number>;
  }

  /**
   * Embeddings arrived: the count of memories not yet searchable, shown with the last answer, is
   * out of date from now on, so it goes at once; the refreshed answer brings the true one.
   */
  readinessChanged(): Promise<void> {
    if ($('meta').dataset.pending !== '0' && this.#metaBase) {
      $('meta').textContent = `${this.#metaBase} · updating: new embeddings arrived`;
      $('meta').dataset.pending = 'updating';
    }
    return this.refresh();
  }

  /** A new question: the selection and open explanations belong to the old one. */
  ask(query?: string): Promise<void> {
    if (query !== undefined) input('q').value = query;
    this.#query = input('q').value.trim();
    this.#selected = null;
    this.#open.clear();
    return this.refresh();
  }

  /** Runs the current question again; calls that arrive while one runs fold into one more run. */
  async refresh(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    try {
      do {
        this.#again = false;
        await this.#run();
      } while (this.#again);
    } finally {
      this.#running = false;
    }
  }

  async #run(): Promise<void> {
    const query = this.#query;
    if (!query) return;
    const asOf = input('asof').value;
    const mode = $<HTMLSelectElement>('mode').value as RecallMode;
    const weights = this.weights();
    const started = performance.now();
    let report;
    try {
      // The explanation panel shows rank fusion's arithmetic, so the demo asks for rank fusion.
      report = await this.#mem.recallReport(query, { mode, k: Number(input('k').value) || 8, weights, fusion: 'rrf', entityGraph: false, ...(asOf ? { asOf } : {}) });
    } catch (error) {
      notify(describeError(error), 'error');
      return;
    }
    // The store changed while this answer was computed: show the next run's instead of a stale one.
    if (this.#again) return;
    const ms = performance.now() - started;
    this.#metaBase = `${report.hits.length} hits in ${ms.toFixed(0)} ms · legs: ${report.legsRun.join(', ')}${asOf ? ` · as of ${asOf}` : ''}`;
    const pending = report.pendingSemantic > 0 ? ` · ${report.pendingSemantic} not yet searchable by meaning (the answer updates when they are)` : '';
    $('meta').textContent = `${this.#metaBase}${pending}`;
    $('meta').dataset.pending = String(report.pendingSemantic);
    this.#answer = {
      query, hits: report.hits, mode,
      settings: { weights, rrfK: RECALL_DEFAULTS.rrfK, historicalWeight: RECALL_DEFAULTS.historicalWeight },
      halfLifeDays: RECALL_DEFAULTS.halfLifeDays,
    };
    if (!report.hits.some((hit) => hit.id === this.#selected)) this.#selected = report.hits[0]?.id ?? null;
    for (const id of [...this.#open]) if (!report.hits.some((hit) => hit.id === id)) this.#open.delete(id);
    $('hits').replaceChildren(...report.hits.map((hit, i) => this.#hitItem(hit, i)));
    await Promise.all(report.hits.map((hit, i) => (this.#open.has(hit.id) ? this.#showExplanation(i) : null)));
    $('hits').dataset.query = query;
    this.#onSelect(this.#selected);
  }

  #chips(hit: Hit, query: string): HTMLElement {
    const box = h('div', { class: 'legs' });
    for (const leg of LEGS) {
      const info = hit.legs[leg];
      if (!info) continue;
      const extra = leg === 'lexical' && 'matched' in info ? ` · ${surfaceWords(query, info.matched).slice(0, 6).join(', ')}`
        : leg === 'graph' && 'distance' in info ? ` · ${info.distance === 0 ? 'anchor' : `${info.distance} link${info.distance === 1 ? '' : 's'}`}` : '';
      const chip = h('span', { class: `leg ${leg}`, title: leg }, `${LEG_NAMES[leg]} `, h('b', { text: `#${info.rank}` }), extra);
      box.append(chip);
    }
    return box;
  }

  #hitItem(hit: Hit, i: number): HTMLElement {
    const query = this.#answer!.query;
    const why = h('button', { type: 'button', class: 'why', 'aria-expanded': String(this.#open.has(hit.id)), text: `Why #${i + 1}?` });
    why.addEventListener('click', (e) => {
      e.stopPropagation();
      void this.#toggle(hit.id);
    });
    const body = h('div', { class: 'body' },
      h('div', { class: 'head' }, h('span', { class: 'id', text: hit.id }), ' ', h('span', { class: `status-pill ${hit.status}`, text: hit.status })),
      h('div', { class: 'text', text: hit.text }),
      this.#chips(hit, query));
    const score = h('div', { class: 'score' }, h('span', { text: fmt(hit.score), title: 'fused score: the sum of what each leg added' }), h('br'), h('span', { text: day(hit.validFrom) }), h('br'), why);
    const li = h('li', { class: `hit ${hit.status}${hit.id === this.#selected ? ' selected' : ''}`, 'data-id': hit.id, tabindex: 0 },
      h('div', { class: 'rank', text: i + 1 }), body, score, h('div', { class: 'explain-slot' }));
    li.addEventListener('click', (e) => {
      if ((e.target as Element).closest('.explain')) return;
      this.select(hit.id);
    });
    return li;
  }

  select(id: string): void {
    this.#selected = id;
    for (const li of document.querySelectorAll<HTMLElement>('#hits .hit')) li.classList.toggle('selected', li.dataset.id === id);
    this.#onSelect(id);
  }

  async #toggle(id: string): Promise<void> {
    const i = this.#answer?.hits.findIndex((hit) => hit.id === id) ?? -1;
    if (i < 0) return;
    if (this.#open.has(id)) {
      this.#open.delete(id);
      this.#slot(id)?.replaceChildren();
      this.#slot(id)?.parentElement?.querySelector('.why')?.setAttribute('aria-expanded', 'false');
      return;
    }
    this.#open.add(id);
    this.select(id);
    await this.#showExplanation(i);
  }

  #slot(id: string): HTMLElement | null {
    return document.querySelector<HTMLElement>(`#hits .hit[data-id="${CSS.escape(id)}"] .explain-slot`);
  }

  async #showExplanation(i: number): Promise<void> {
    const answer = this.#answer!;
    const id = answer.hits[i]!.id;
    const box = await renderExplanation(this.#mem, i, answer);
    if (this.#answer !== answer) return;
    this.#slot(id)?.replaceChildren(box);
    this.#slot(id)?.parentElement?.querySelector('.why')?.setAttribute('aria-expanded', 'true');
  }
}
