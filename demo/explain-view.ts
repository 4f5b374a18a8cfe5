import type { RemoteMemory } from '../src/client/index.js';
import type { Hit, LegName } from '../src/types.js';
import { day, h } from './dom.js';
import { compareExplanations, explainHit, fmt, LEG_NAMES, surfaceWords, type Explanation, type FusionSettings, type LegPart } from './explain-model.js';

/** What the explanation of one hit needs to know about the answer it belongs to. */
export interface AnswerContext {
  query: string;
  hits: Hit[];
  settings: FusionSettings;
  halfLifeDays: number;
  mode: string;
}

function legDetail(hit: Hit, part: LegPart, query: string, halfLifeDays: number): string {
  const legs = hit.legs;
  switch (part.leg) {
    case 'vector':
      return `#${part.rank} closest in meaning to your question (cosine similarity ${legs.vector!.score.toFixed(3)}).`;
    case 'lexical': {
      const words = surfaceWords(query, legs.lexical!.matched).map((w) => `“${w}”`).join(', ');
      return `#${part.rank} by shared words (BM25 ${legs.lexical!.score.toFixed(2)}); it contains ${words || 'parts of your words'}.`;
    }
    case 'graph': {
      const g = legs.graph!;
      if (g.relation) return `#${part.rank} answer to the question's ${g.relation} relation: ${g.distance} link${g.distance === 1 ? '' : 's'} from ${g.via[0]}, the memory the question asks about (path below); answers come first.`;
      if (g.distance === 0) return `#${part.rank} among linked memories: it is itself an anchor, one of the best matches the walk starts from.`;
      return `#${part.rank} among linked memories: ${g.distance} link${g.distance === 1 ? '' : 's'} away from the anchor ${g.via[0]} (path below).`;
    }
    case 'time':
      return `#${part.rank} by recency among the candidates: valid since ${day(hit.validFrom)}, time factor ${legs.time!.weight.toFixed(2)} = e^(−age ÷ ${halfLifeDays} days).`;
  }
}

/** One sentence on why `above` outranks `below`; `self` is the hit being explained. */
function comparison(self: Hit, above: Hit, ea: Explanation, below: Hit, eb: Explanation, weights: FusionSettings['weights']): HTMLElement {
  const d = compareExplanations(ea, above.score, eb, below.score);
  const other = above === self ? below : above;
  const head = above === self ? `Ahead of ${other.id} (${fmt(other.score)})` : `Behind ${other.id} (${fmt(other.score)})`;
  const winner = above === self ? 'it' : above.id;
  const text = d.decidedBy === null
    ? `${head}: the legs give both the same; the tie goes to the current, then the fresher memory.`
    : d.decidedBy === 'extra'
      ? `${head} by ${fmt(Math.abs(d.margin))}: fusion's extra vote for ${winner} (identifier, supersession, said by the person you named, or an answer to the question's relation) decided it.`
      : `${head} by ${fmt(Math.abs(d.margin))}: the ${LEG_NAMES[d.decidedBy]} leg (${d.decidedBy}, weight ${weights[d.decidedBy]}) gave ${winner} ${fmt(d.byLeg[d.decidedBy])} more — that decided it.`;
  return h('p', { class: 'compare', 'data-decided-by': d.decidedBy ?? 'tie', 'data-other': other.id, text });
}

/** The graph path from the anchor to the hit, each hop with its edge type and direction. */
async function pathLine(mem: RemoteMemory, hit: Hit): Promise<HTMLElement | null> {
  const g = hit.legs.graph;
  if (!g || g.distance === 0) return null;
  const nodes = [...g.via, hit.id];
  const line = h('p', { class: 'path' }, h('span', { class: 'hint', text: 'path from the anchor: ' }));
  line.append(h('code', { text: nodes[0]! }));
  for (let i = 1; i < nodes.length; i++) {
    const from = nodes[i - 1]!;
    const to = nodes[i]!;
    const edges = await mem.edges(from);
    const edge = edges.find((e) => (e.from === from && e.to === to) || (e.from === to && e.to === from));
    const arrow = !edge ? ' — ' : edge.from === from ? ` —${edge.type}→ ` : ` ←${edge.type}— `;
    line.append(h('span', { class: 'hop', text: arrow }), h('code', { text: to }));
  }
  return line;
}

/**
 * Renders why `hit` is where it is: each leg's rank and score in words, its weight, what it added
 * to the fused score, the graph path from the anchor, the time factor, and the comparison with the
 * hits directly above and below.
 */
export async function renderExplanation(mem: RemoteMemory, index: number, ctx: AnswerContext): Promise<HTMLElement> {
  const hit = ctx.hits[index]!;
  const box = h('div', { class: 'explain', 'data-id': hit.id });
  if (ctx.mode !== 'hybrid') {
    box.append(h('p', { text: `Only the ${ctx.mode} leg ran (mode “${ctx.mode}”), so its own order is the answer; the score ${fmt(hit.score)} is that leg's score.` }));
    return box;
  }
  const { rrfK } = ctx.settings;
  const e = explainHit(hit, ctx.query, ctx.settings);
  box.append(h('p', { class: 'lead', text: `Score ${fmt(hit.score)} is the sum of what each search leg gave it: a leg adds weight ÷ (${rrfK} + its rank), so a high rank in a heavily weighted leg counts most.` }));
  const rows = e.parts.map((p) => h('tr', { 'data-leg': p.leg },
    h('th', { text: `${LEG_NAMES[p.leg]}`, title: p.leg }),
    h('td', { text: legDetail(hit, p, ctx.query, ctx.halfLifeDays) }),
    h('td', { class: 'num', text: `${p.weight} ÷ (${rrfK}+${p.rank})` }),
    h('td', { class: 'num add', text: `+${fmt(p.contribution)}` })));
  const missing = (['vector', 'lexical', 'graph', 'time'] as LegName[]).filter((l) => !hit.legs[l]);
  if (e.extra > 0) {
    // The identifier vote is at most one more words-leg vote at rank 1; anything beyond is a supersession lift.
    const maxVote = ctx.settings.weights.lexical / (rrfK + 1);
    const typed = `you typed ${e.identifiers.map((w) => `“${w}”`).join(', ')} and this memory contains it verbatim, so the words leg votes a second time`;
    const lift = 'it replaces (SUPERSEDES) a memory that matched, so it ranks at least as high as that one';
    const why = e.identifiers.length === 0 ? lift : e.extra <= maxVote + 1e-9 ? typed : `${typed}; and ${lift}`;
    rows.push(h('tr', { 'data-leg': 'extra' }, h('th', { text: 'extra' }), h('td', { text: why }), h('td'), h('td', { class: 'num add', text: `+${fmt(e.extra)}` })));
  }
  if (e.factor !== 1) {
    rows.push(h('tr', { 'data-leg': 'historical' }, h('th', { text: 'history' }),
      h('td', { text: `no longer true${hit.validTo ? ` since ${day(hit.validTo)}` : ''}, so it keeps ${e.factor} of its score` }), h('td'), h('td', { class: 'num', text: `× ${e.factor}` })));
  }
  box.append(h('table', {}, h('tbody', {}, ...rows)));
  if (missing.length > 0) box.append(h('p', { class: 'hint', text: `Not found by: ${missing.map((l) => LEG_NAMES[l]).join(', ')} — those legs added nothing.` }));
  const path = await pathLine(mem, hit);
  if (path) box.append(path);
  const explained = ctx.hits.map((x) => explainHit(x, ctx.query, ctx.settings));
  if (index > 0) box.append(comparison(hit, ctx.hits[index - 1]!, explained[index - 1]!, hit, e, ctx.settings.weights));
  if (index + 1 < ctx.hits.length) box.append(comparison(hit, hit, e, ctx.hits[index + 1]!, explained[index + 1]!, ctx.settings.weights));
  return box;
}
