import type { RemoteMemory } from '../src/client/index.js';
import type { Edge, MemoryRecord } from '../src/types.js';
import { $, day, describeError, h, notify } from './dom.js';

export const PAGE_SIZE = 20;
const EDGE_TYPES = ['DEPENDS_ON', 'SUPERSEDES', 'REFERENCES', 'IMPLEMENTS', 'DERIVED_FROM', 'EXTENDS', 'RELATES_TO', 'CONTRADICTS', 'SUPPORTS'];

/** What the browser asks of the rest of the page. */
export interface BrowserHost {
  /** Show the search as of a date, asking `query`. */
  searchAsOf(query: string, asOf: string): void;
  /** Show a memory's neighbourhood in the graph panel. */
  showInGraph(id: string): void;
}

const readiness = (r: MemoryRecord['readiness']) => (r === 'semantic'
  ? h('span', { class: 'pill ready', text: 'searchable by meaning', title: 'its embedding is in the vector index' })
  : h('span', { class: 'pill waiting', text: 'words & links only', title: 'its embedding is still being computed' }));

/**
 * The memory browser: every memory page by page (filtered by id prefix, kind, domain), and for the
 * chosen one an editor, its readiness, its validity and supersession history, its edges (add,
 * remove) and forget.
 */
export class MemoryBrowser {
  readonly #mem: RemoteMemory;
  readonly #host: BrowserHost;
  #offset = 0;
  #total = 0;
  #open: string | null = null;
  #confirmForget = false;
  /** The open editor holds changes not yet saved. */
  #edited = false;
  /** Counts the user's requests to open a memory, so an answer to an older one is dropped. */
  #request = 0;

  constructor(mem: RemoteMemory, host: BrowserHost) {
    this.#mem = mem;
    this.#host = host;
    let timer = 0;
    for (const id of ['b-id', 'b-kind', 'b-domain']) {
      $(id).addEventListener('input', () => {
        window.clearTimeout(timer);
        timer = window.setTimeout(() => {
          this.#offset = 0;
          void this.refresh();
        }, 200);
      });
    }
    $('browse-form').addEventListener('submit', (e) => e.preventDefault());
    $('b-prev').addEventListener('click', () => this.#page(-1));
    $('b-next').addEventListener('click', () => this.#page(1));
  }

  #page(step: number): void {
    this.#offset = Math.max(0, Math.min(this.#offset + step * PAGE_SIZE, Math.max(0, this.#total - 1)));
    void this.refresh();
  }

  /** Re-reads the current page and the open memory (after any change to the store). */
  async refresh(): Promise<void> {
    const value = (id: string) => $<HTMLInputElement>(id).value.trim();
    const filter = { ...(value('b-id') ? { idPrefix: value('b-id') } : {}), ...(value('b-kind') ? { kind: value('b-kind') } : {}), ...(value('b-domain') ? { domain: value('b-domain') } : {}) };
    let page;
    try {
      page = await this.#mem.list({ offset: this.#offset, limit: PAGE_SIZE, ...filter });
    } catch (error) {
      $('b-count').textContent = describeError(error);
      return;
    }
    this.#total = page.total;
    if (page.records.length === 0 && this.#offset > 0 && page.total > 0) {
      this.#offset = Math.floor((page.total - 1) / PAGE_SIZE) * PAGE_SIZE;
      return this.refresh();
    }
    const last = this.#offset + page.records.length;
    $('b-count').textContent = page.total === 0 ? 'No memory matches.' : `${this.#offset + 1}–${last} of ${page.total} memories`;
    $<HTMLButtonElement>('b-prev').disabled = this.#offset === 0;
    $<HTMLButtonElement>('b-next').disabled = last >= page.total;
    $('b-list').replaceChildren(...page.records.map((r) => this.#row(r)));
    const ids = $('ids');
    for (const r of page.records) if (!ids.querySelector(`option[value="${CSS.escape(r.id)}"]`)) ids.append(h('option', { value: r.id }));
    if (this.#open) await this.open(this.#open, false, true);
  }

  /** Whether a background re-read must leave the detail panel alone: the user is in it or changed it. */
  #busy(): boolean {
    return this.#edited || $('b-detail').contains(document.activeElement);
  }

  #row(r: MemoryRecord): HTMLElement {
    const li = h('li', { class: `mem${r.id === this.#open ? ' selected' : ''}`, 'data-id': r.id, tabindex: 0 },
      h('div', { class: 'head' }, h('span', { class: 'id', text: r.id }), ' ',
        h('span', { class: 'facet', text: [r.kind, r.domain].filter(Boolean).join(' · ') }), ' ',
        h('span', { class: `status-pill ${r.status}`, text: r.status }), ' ', readiness(r.readiness)),
      h('div', { class: 'text clamp', text: r.text }));
    li.addEventListener('click', () => void this.open(r.id));
    li.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') void this.open(r.id);
    });
    return li;
  }

  /**
   * Shows one memory in the detail panel. The newest request wins; a `background` re-read (after a
   * change elsewhere) is also dropped if the user is editing by the time its reads come back, so it
   * never wipes their edit.
   */
  async open(id: string, scroll = true, background = false): Promise<void> {
    if (!background) {
      this.#request++;
      if (this.#open !== id) this.#confirmForget = false;
      this.#open = id;
    }
    const request = this.#request;
    const stale = () => request !== this.#request || (background && this.#busy());
    if (stale()) return;
    const record = await this.#mem.get(id);
    if (stale()) return;
    if (!record) {
      this.#open = null;
      $('b-detail').replaceChildren(h('p', { class: 'hint', text: `${id} is no longer in the store.` }));
      return;
    }
    for (const li of document.querySelectorAll<HTMLElement>('#b-list .mem')) li.classList.toggle('selected', li.dataset.id === id);
    const edges = await this.#mem.edges(id);
    if (stale()) return;
    this.#edited = false;
    $('b-detail').replaceChildren(
      h('div', { class: 'head' }, h('h3', { class: 'id', text: record.id }), ' ', h('span', { class: `status-pill ${record.status}`, text: record.status }), ' ', readiness(record.readiness)),
      this.#editor(record),
      this.#history(record, edges),
      this.#edges(record, edges),
      this.#actions(record));
    if (scroll) $('b-detail').scrollIntoView({ block: 'nearest' });
  }

  #editor(r: MemoryRecord): HTMLElement {
    const text = h('textarea', { id: 'e-text', rows: 4 });
    text.value = r.text;
    const kind = h('input', { id: 'e-kind', placeholder: 'kind', value: r.kind ?? '' });
    const domain = h('input', { id: 'e-domain', placeholder: 'domain', value: r.domain ?? '' });
    const form = h('form', { class: 'editor' }, h('label', { class: 'hint', for: 'e-text', text: 'text' }), text,
      h('div', { class: 'row' }, kind, domain, h('button', { type: 'submit', text: 'Save' })));
    form.addEventListener('input', () => {
      this.#edited = true;
    });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const patch: Record<string, string | null> = {};
      if (text.value !== r.text) patch['text'] = text.value;
      if (kind.value.trim() !== (r.kind ?? '')) patch['kind'] = kind.value.trim() || null;
      if (domain.value.trim() !== (r.domain ?? '')) patch['domain'] = domain.value.trim() || null;
      if (Object.keys(patch).length === 0) return notify('Nothing changed.');
      try {
        await this.#mem.update(r.id, patch);
        notify(`Saved ${r.id}${'text' in patch ? '; its new embedding follows in the background' : ''}`);
        await this.refresh();
        await this.open(r.id, false);
      } catch (error) {
        notify(describeError(error), 'error');
      }
    });
    return form;
  }

  #history(r: MemoryRecord, edges: Edge[]): HTMLElement {
    const box = h('div', { class: 'history' }, h('h4', { text: 'History' }),
      h('p', { text: `Recorded ${day(r.createdAt)} · true from ${day(r.validFrom)}${r.validTo ? ` until ${day(r.validTo)}` : ', still true'}.` }));
    for (const e of edges.filter((x) => x.type === 'SUPERSEDES')) {
      const newer = e.to === r.id;
      box.append(h('p', {}, newer ? 'Superseded by ' : 'Replaces ', this.#link(newer ? e.from : e.to), ` (since ${day(e.validFrom)}).`));
    }
    if (r.validTo) {
      const before = day(r.validTo - 86_400_000);
      const asOf = h('button', { type: 'button', class: 'secondary', 'data-action': 'as-of', text: `Search as of ${before}` });
      asOf.addEventListener('click', () => this.#host.searchAsOf(r.text, before));
      box.append(h('p', {}, 'See what the memory answered while this was still true: ', asOf));
    }
    return box;
  }

  #link(id: string): HTMLElement {
    const a = h('button', { type: 'button', class: 'link', text: id });
    a.addEventListener('click', () => void this.open(id));
    return a;
  }

  #edges(r: MemoryRecord, edges: Edge[]): HTMLElement {
    const list = h('ul', { class: 'edge-list' }, ...edges.map((e) => {
      const remove = h('button', { type: 'button', class: 'secondary small', 'aria-label': `remove ${e.from} ${e.type} ${e.to}`, text: 'Remove' });
      remove.addEventListener('click', async () => {
        try {
          await this.#mem.unrelate(e.id);
          notify(`Removed ${e.from} ${e.type} ${e.to}`);
          await this.open(r.id, false);
        } catch (error) {
          notify(describeError(error), 'error');
        }
      });
      const out = e.from === r.id;
      return h('li', { 'data-edge': `${e.from} ${e.type} ${e.to}` }, out ? 'this ' : '', this.#link(out ? e.to : e.from),
        h('span', { class: 'etype', text: out ? ` ←${e.type}— ` : ` —${e.type}→ ` }), out ? '' : 'this', ' ', remove);
    }));
    if (edges.length === 0) list.append(h('li', { class: 'hint', text: 'No edges yet.' }));
    const dir = h('select', { id: 'x-dir', 'aria-label': 'direction' }, h('option', { value: 'out', text: 'this →' }), h('option', { value: 'in', text: '→ this' }));
    const type = h('select', { id: 'x-type', 'aria-label': 'edge type' }, ...EDGE_TYPES.map((t) => h('option', { text: t })));
    const other = h('input', { id: 'x-other', list: 'ids', placeholder: 'other memory id', required: true });
    const form = h('form', { class: 'row add-edge' }, dir, type, other, h('button', { type: 'submit', text: 'Add edge' }));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const [from, to] = dir.value === 'out' ? [r.id, other.value.trim()] : [other.value.trim(), r.id];
      try {
        await this.#mem.relate(from, to, type.value);
        notify(`${from} ${type.value} ${to}`);
        await this.open(r.id, false);
      } catch (error) {
        notify(describeError(error), 'error');
      }
    });
    return h('div', { class: 'edges' }, h('h4', { text: `Edges (${edges.length})` }), list, form);
  }

  #actions(r: MemoryRecord): HTMLElement {
    const graph = h('button', { type: 'button', class: 'secondary', text: 'Show in graph' });
    graph.addEventListener('click', () => this.#host.showInGraph(r.id));
    const forget = h('button', { type: 'button', class: 'danger', 'data-action': 'forget', text: this.#confirmForget ? `Really forget ${r.id}? Its edges go too` : 'Forget' });
    forget.addEventListener('click', async () => {
      if (!this.#confirmForget) {
        this.#confirmForget = true;
        forget.textContent = `Really forget ${r.id}? Its edges go too`;
        return;
      }
      try {
        await this.#mem.forget(r.id);
        this.#confirmForget = false;
        this.#open = null;
        $('b-detail').replaceChildren(h('p', { class: 'hint', text: `Forgot ${r.id}.` }));
        notify(`Forgot ${r.id}`);
        await this.refresh();
      } catch (error) {
        notify(describeError(error), 'error');
      }
    });
    return h('div', { class: 'row actions' }, graph, forget);
  }
}
