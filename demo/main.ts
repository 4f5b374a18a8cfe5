import { HybridMemory, type MemoryEvent, type RemoteMemory } from '../src/client/index.js';
import { RECALL_DEFAULTS } from '../src/memory/recall-options.js';
import type { Hit, LegName, RecallMode } from '../src/types.js';
import { renderGraph } from './graph-view.js';
import { SAMPLE_EDGES, SAMPLE_MEMORIES, SAMPLE_QUERIES } from './sample.js';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const LEGS: LegName[] = ['vector', 'lexical', 'graph', 'time'];
let mem: RemoteMemory;
let selected: string | null = null;

function toast(message: string, error = false): void {
  const t = $('toast');
  t.textContent = message;
  t.className = `show${error ? ' error' : ''}`;
  clearTimeout((toast as { timer?: number }).timer);
  (toast as { timer?: number }).timer = window.setTimeout(() => (t.className = ''), 4000);
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ? `${e.code}: ${e.message}` : String(error);
}

function onEvent(e: MemoryEvent): void {
  if (e.type === 'role') {
    $('role').textContent = e.role === 'owner' ? `store “${e.store}” · this tab owns it` : `store “${e.store}” · via another tab`;
    $('role').className = 'badge ok';
  } else if (e.type === 'model' && e.status === 'progress' && typeof e.progress === 'number') {
    $('model').textContent = `model: loading ${Math.round(e.progress)}%`;
    $('model-bar').style.width = `${e.progress}%`;
  } else if (e.type === 'model-ready') {
    $('model').textContent = `model: ${e.id.split('/')[1]} · ${e.ms} ms`;
    $('model').className = 'badge ok';
    $('model-bar').style.width = '100%';
  } else if (e.type === 'model-error') {
    $('model').textContent = 'model: failed';
    $('model').className = 'badge warn';
    toast(`Model failed to load: ${e.message}`, true);
  } else if (e.type === 'enrichment') {
    $('enrich').textContent = e.pending > 0 ? `embedding… ${e.done} done, ${e.pending} left` : `embeddings: ${e.done} done${e.failed ? `, ${e.failed} failed` : ''}`;
    $('enrich').className = `badge ${e.pending > 0 ? 'warn' : 'ok'}`;
    if (e.pending === 0) void refreshStats();
  } else if (e.type === 'changed') {
    void refreshStats();
  }
}

async function refreshStats(): Promise<void> {
  const s = await mem.stats();
  const rows: Array<[string, string | number]> = [
    ['memories', s.memories], ['edges', s.edges], ['current', s.current], ['historical', s.historical],
    ['searchable by meaning', `${s.readiness.semantic} / ${s.memories}`], ['vector index', `${s.dim ?? '–'}-d · ${(s.vectorBytes / 1024).toFixed(0)} KiB`],
    ['storage', s.storage], ['schema', `v${s.schemaVersion}`],
  ];
  $('stats').replaceChildren(...rows.flatMap(([k, v]) => {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = String(v);
    return [dt, dd];
  }));
}

function weights(): Record<LegName, number> {
  return Object.fromEntries(LEGS.map((leg) => [leg, Number(($(`w-${leg}`) as HTMLInputElement).value)])) as Record<LegName, number>;
}

function legChips(hit: Hit): HTMLElement {
  const box = document.createElement('div');
  box.className = 'legs';
  for (const leg of LEGS) {
    const info = hit.legs[leg];
    if (!info) continue;
    const chip = document.createElement('span');
    chip.className = `leg ${leg}`;
    const extra = leg === 'lexical' && 'matched' in info ? ` · ${info.matched.slice(0, 3).join(', ')}`
      : leg === 'graph' && 'distance' in info ? ` · ${info.distance} hop${info.distance === 1 ? '' : 's'}` : '';
    chip.innerHTML = `${leg} <b>#${info.rank}</b>${extra}`;
    box.appendChild(chip);
  }
  return box;
}

async function recall(): Promise<void> {
  const query = ($('q') as HTMLInputElement).value.trim();
  if (!query) return;
  const asOf = ($('asof') as HTMLInputElement).value;
  const started = performance.now();
  try {
    const report = await mem.recallReport(query, {
      mode: ($('mode') as HTMLSelectElement).value as RecallMode,
      k: Number(($('k') as HTMLInputElement).value) || 8,
      weights: weights(),
      ...(asOf ? { asOf } : {}),
    });
    const ms = performance.now() - started;
    $('meta').textContent = `${report.hits.length} hits in ${ms.toFixed(1)} ms · legs: ${report.legsRun.join(', ')}${report.pendingSemantic ? ` · ${report.pendingSemantic} not yet searchable by meaning` : ''}${asOf ? ` · as of ${asOf}` : ''}`;
    $('hits').replaceChildren(...report.hits.map((hit, i) => {
      const li = document.createElement('li');
      li.className = `hit ${hit.status}${hit.id === selected ? ' selected' : ''}`;
      li.dataset.id = hit.id;
      const rank = document.createElement('div');
      rank.className = 'rank';
      rank.textContent = String(i + 1);
      const body = document.createElement('div');
      body.innerHTML = `<span class="id"></span> <span class="status-pill ${hit.status}">${hit.status}</span><div class="text"></div>`;
      body.querySelector('.id')!.textContent = hit.id;
      body.querySelector('.text')!.textContent = hit.text;
      body.appendChild(legChips(hit));
      const score = document.createElement('div');
      score.className = 'score';
      score.innerHTML = `${hit.score.toFixed(4)}<br>${new Date(hit.createdAt).toISOString().slice(0, 10)}`;
      li.append(rank, body, score);
      li.addEventListener('click', () => void showGraph(hit.id));
      return li;
    }));
    if (report.hits[0] && !selected) void showGraph(report.hits[0].id);
  } catch (error) {
    toast(describe(error), true);
  }
}

async function showGraph(id: string): Promise<void> {
  selected = id;
  for (const li of document.querySelectorAll<HTMLElement>('.hit')) li.classList.toggle('selected', li.dataset.id === id);
  const trace = await mem.trace(id, { depth: 2 });
  $('graph-title').textContent = `— ${id}: ${trace.nodes.length} memories, ${trace.edges.length} edges within 2 hops`;
  renderGraph($('graph') as unknown as SVGSVGElement, trace, id, (next) => void showGraph(next));
}

async function seedIfEmpty(): Promise<void> {
  const stats = await mem.stats();
  if (stats.memories > 0) return;
  await mem.storeMany(SAMPLE_MEMORIES);
  for (const [from, to, type] of SAMPLE_EDGES) await mem.relate(from, to, type);
  toast(`Loaded the sample project: ${SAMPLE_MEMORIES.length} memories, ${SAMPLE_EDGES.length} relations`);
}

function wireForms(): void {
  for (const leg of LEGS) {
    const input = $(`w-${leg}`) as HTMLInputElement;
    // The sliders start at the library's own defaults, so the demo answers as recall() does.
    input.value = String(RECALL_DEFAULTS.weights[leg]);
    const out = input.nextElementSibling as HTMLOutputElement;
    const show = () => (out.value = Number(input.value).toFixed(2));
    show();
    input.addEventListener('input', show);
    input.addEventListener('change', () => void recall());
  }
  for (const id of ['mode', 'k', 'asof']) $(id).addEventListener('change', () => void recall());
  $('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    selected = null;
    void recall();
  });
  $('examples').replaceChildren(...SAMPLE_QUERIES.map((q) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = q;
    b.addEventListener('click', () => {
      ($('q') as HTMLInputElement).value = q;
      selected = null;
      void recall();
    });
    return b;
  }));
  $('add-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = ($('add-text') as HTMLTextAreaElement).value.trim();
    const id = ($('add-id') as HTMLInputElement).value.trim();
    const kind = ($('add-kind') as HTMLInputElement).value.trim();
    const date = ($('add-date') as HTMLInputElement).value;
    try {
      const stored = await mem.store({ text, ...(id ? { id } : {}), ...(kind ? { kind } : {}), ...(date ? { createdAt: date } : {}) });
      toast(`Stored ${stored}; its embedding follows in the background`);
      ($('add-form') as HTMLFormElement).reset();
      addIds([stored]);
    } catch (error) {
      toast(describe(error), true);
    }
  });
  $('relate-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const from = ($('rel-from') as HTMLInputElement).value.trim();
    const to = ($('rel-to') as HTMLInputElement).value.trim();
    const type = ($('rel-type') as HTMLSelectElement).value;
    try {
      await mem.relate(from, to, type);
      toast(`${from} ${type} ${to}`);
      if (selected) void showGraph(selected);
    } catch (error) {
      toast(describe(error), true);
    }
  });
  $('export').addEventListener('click', async () => {
    try {
      const bytes = await mem.exportSnapshot();
      const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/zip' }));
      const a = Object.assign(document.createElement('a'), { href: url, download: `hybridmind-${new Date().toISOString().slice(0, 10)}.mind.zip` });
      a.click();
      URL.revokeObjectURL(url);
      toast(`Exported ${(bytes.byteLength / 1024).toFixed(0)} KiB`);
    } catch (error) {
      toast(describe(error), true);
    }
  });
  $('import').addEventListener('change', async (e) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (!file) return;
    try {
      await mem.restoreSnapshot(new Uint8Array(await file.arrayBuffer()));
      toast(`Imported ${file.name}`);
      await refreshStats();
      void recall();
    } catch (error) {
      toast(describe(error), true);
    }
  });
}

function addIds(ids: string[]): void {
  const list = $('ids');
  for (const id of ids) {
    const o = document.createElement('option');
    o.value = id;
    list.appendChild(o);
  }
}

async function main(): Promise<void> {
  wireForms();
  const worker = new Worker(new URL('../worker/memory.worker.ts', import.meta.url), { type: 'module' });
  try {
    mem = await HybridMemory.connect(worker, { store: new URLSearchParams(location.search).get('store') ?? 'demo', onEvent });
  } catch (error) {
    $('role').textContent = describe(error);
    $('role').className = 'badge warn';
    return;
  }
  (window as unknown as { demoMemory: RemoteMemory }).demoMemory = mem;
  await seedIfEmpty();
  addIds(SAMPLE_MEMORIES.map((m) => m.id!));
  await refreshStats();
  ($('q') as HTMLInputElement).value = SAMPLE_QUERIES[0]!;
  await recall();
  document.body.dataset.ready = 'true';
}

void main();
