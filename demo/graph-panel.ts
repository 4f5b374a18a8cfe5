import type { RemoteMemory } from '../src/client/index.js';
import { $, describeError, notify } from './dom.js';
import { renderGraph, ZoomPan } from './graph-view.js';

/** The neighbourhood card: the selected memory's graph within two hops, with zoom and pan. */
export class GraphPanel {
  readonly #mem: RemoteMemory;
  readonly #zoom: ZoomPan;
  readonly #onPick: (id: string) => void;
  #shown: string | null = null;

  constructor(mem: RemoteMemory, onPick: (id: string) => void) {
    this.#mem = mem;
    this.#onPick = onPick;
    const svg = $('graph') as unknown as SVGSVGElement;
    this.#zoom = new ZoomPan(svg);
    $('zoom-in').addEventListener('click', () => this.#zoom.zoom(1.25));
    $('zoom-out').addEventListener('click', () => this.#zoom.zoom(1 / 1.25));
    $('zoom-fit').addEventListener('click', () => this.#zoom.reset());
  }

  get shown(): string | null {
    return this.#shown;
  }

  async show(id: string | null): Promise<void> {
    this.#shown = id;
    const svg = $('graph') as unknown as SVGSVGElement;
    if (id === null) {
      $('graph-title').textContent = 'no memory selected';
      svg.replaceChildren();
      return;
    }
    try {
      const trace = await this.#mem.trace(id, { depth: 2 });
      if (this.#shown !== id) return;
      $('graph-title').textContent = `${id} · ${trace.nodes.length} memories, ${trace.edges.length} edges within 2 links`;
      renderGraph(svg, this.#zoom, trace, id, this.#onPick);
    } catch (error) {
      notify(describeError(error), 'error');
    }
  }
}
