import { HybridMemory, type MemoryEvent, type RemoteMemory } from '../src/client/index.js';
import { MemoryBrowser } from './browser.js';
import { $, describeError, h } from './dom.js';
import { LEGS } from './explain-model.js';
import { GraphPanel } from './graph-panel.js';
import { ImportPanel, loadSample } from './import-view.js';
import { SAMPLE_QUERIES } from './sample.js';
import { RRF_WEIGHTS, SearchPanel } from './search.js';
import { StatusPanel } from './status.js';

const TABS = ['search', 'memories', 'import'] as const;
type Tab = (typeof TABS)[number];

let mem: RemoteMemory | null = null;
const status = new StatusPanel(() => mem);

function showTab(tab: Tab): void {
  for (const t of TABS) {
    $(`tab-${t}`).hidden = t !== tab;
    $(`to-${t}`).setAttribute('aria-selected', String(t === tab));
  }
  if (location.hash !== `#${tab}`) history.replaceState(null, '', `${location.pathname}${location.search}#${tab}`);
}

function wireSettings(search: SearchPanel): void {
  for (const leg of LEGS) {
    const input = $<HTMLInputElement>(`w-${leg}`);
    // The page explains rank fusion (RRF), so the sliders start at the weights RRF was tuned with;
    // the library's default weights belong to its score fusion, where graph 4 is not too loud.
    input.value = String(RRF_WEIGHTS[leg]);
    const out = input.nextElementSibling as HTMLOutputElement;
    const show = () => (out.value = Number(input.value).toFixed(2));
    show();
    input.addEventListener('input', show);
    input.addEventListener('change', () => void search.refresh());
  }
  for (const id of ['mode', 'k', 'asof']) $(id).addEventListener('change', () => void search.refresh());
  $('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void search.ask();
  });
  $('examples').replaceChildren(...SAMPLE_QUERIES.map((q) => {
    const b = h('button', { type: 'button', text: q });
    b.addEventListener('click', () => void search.ask(q));
    return b;
  }));
}

async function main(): Promise<void> {
  for (const t of TABS) $(`to-${t}`).addEventListener('click', () => showTab(t));
  const initial = TABS.find((t) => `#${t}` === location.hash) ?? 'search';
  showTab(initial);
  await status.learnModelSize();
  let onStore: (e: MemoryEvent) => void = () => {};
  const worker = new Worker(new URL('../worker/memory.worker.ts', import.meta.url), { type: 'module' });
  try {
    mem = await HybridMemory.connect(worker, { store: new URLSearchParams(location.search).get('store') ?? 'demo', onEvent: (e) => { status.onEvent(e); onStore(e); } });
  } catch (error) {
    $('role').textContent = describeError(error);
    $('role').className = 'badge warn';
    return;
  }
  const memory = mem;
  (window as unknown as { demoMemory: RemoteMemory }).demoMemory = memory;
  let search: SearchPanel;
  const graph = new GraphPanel(memory, (id) => {
    search.select(id);
    void graph.show(id);
  });
  search = new SearchPanel(memory, (id) => void graph.show(id));
  const browser = new MemoryBrowser(memory, {
    searchAsOf: (query, asOf) => {
      $<HTMLInputElement>('asof').value = asOf;
      showTab('search');
      void search.ask(query);
    },
    showInGraph: (id) => {
      showTab('search');
      void graph.show(id);
    },
  });
  new ImportPanel(memory, () => {
    void browser.refresh();
    void search.refresh();
  });
  wireSettings(search);
  // The store changed under the page (a write here or in another tab, embeddings arriving):
  // re-ask the question and re-read the list, so what is shown is what the store now answers.
  onStore = (e) => {
    if (e.type === 'changed' || e.type === 'enrichment') {
      void (e.type === 'enrichment' ? search.readinessChanged() : search.refresh());
      void browser.refresh();
      if (graph.shown && e.type === 'changed') void graph.show(graph.shown);
    }
  };
  if ((await memory.stats()).memories === 0) await loadSample(memory);
  status.refreshStats();
  await browser.refresh();
  await search.ask(SAMPLE_QUERIES[0]!);
  document.body.dataset.ready = 'true';
}

void main();
