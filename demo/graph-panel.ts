import type { RemoteMemory } from '../src/client/index.js';
import type { TraceResult } from '../src/types.js';
import { $, describeError, notify } from './dom.js';
import { renderGraph, ZoomPan } from './graph-view.js';

/** The neighbourhood card: the selected memory's graph within two hops, with zoom and pan. */
export class GraphPanel {
  readonly #mem: RemoteMemory;
  readonly #zoom: ZoomPan;
  readonly #onPick: (id: string) => void;
  #shown: string | null = null;
  #drawn: { trace: TraceResult; centre: string } | null = null;
  /** The SVG size the drawing was made for; '' while it waits for the SVG to be visible. */
  #drawnAt = '';

  constructor(mem: RemoteMemory, onPick: (id: string) => void) {
    this.#mem = mem;
    this.#onPick = onPick;
    const svg = $('graph') as unknown as SVGSVGElement;
    this.#zoom = new ZoomPan(svg);
    $('zoom-in').addEventListener('click', () => this.#zoom.zoom(1.25));
    $('zoom-out').addEventListener('click', () => this.#zoom.zoom(1 / 1.25));
    $('zoom-fit').addEventListener('click', () => this.#zoom.reset());
    // The layout is made in the SVG's pixels: draw again when its size changes, and when it
    // becomes visible after being drawn in a hidden tab (size 0).
    new ResizeObserver(() => {
      if (this.#drawn && svg.clientWidth > 0 && `${svg.clientWidth}x${svg.clientHeight}` !== this.#drawnAt) this.#draw(this.#drawn.trace, this.#drawn.centre);
    }).observe(svg);
  }

  #draw(trace: TraceResult, centre: string): void {
    this.#drawn = { trace, centre };
    const svg = $('graph') as unknown as SVGSVGElement;
    this.#drawnAt = svg.clientWidth === 0 ? '' : `${svg.clientWidth}x${svg.clientHeight}`;
    if (this.#drawnAt) renderGraph(svg, this.#zoom, trace, centre, this.#onPick);
  }

  get shown(): string | null {
    return this.#shown;
  }

  async show(id: string | null): Promise<void> {
    this.#shown = id;
    const svg = $('graph') as unknown as SVGSVGElement;
    if (id === null) {
      $('graph-title').textContent = 'no memory selected';
      this.#drawn = null;
      svg.replaceChildren();
      return;
    }
    try {
      const trace = await this.#mem.trace(id, { depth: 2 });
      if (this.#shown !== id) return;
      $('graph-title').textContent = `${id} · ${trace.nodes.length} memories, ${trace.edges.length} edges within 2 links`;
      // The same neighbourhood asked for again (a click on the memory shown, a change elsewhere in
      // the store) keeps the reader's zoom and pan, which a new drawing would reset.
      if (this.#drawnAt && this.#drawn?.centre === id && JSON.stringify(this.#drawn.trace) === JSON.stringify(trace)) return;
      this.#draw(trace, id);
    } catch (error) {
      notify(describeError(error), 'error');
    }
  }
}
