import { varintLength, writeVarint } from './record.js';

/**
 * Bulk-loads SQLite b-trees (https://www.sqlite.org/fileformat2.html#b_tree_pages) from sorted
 * content into fresh pages: leaves filled in key order, interior levels built above them until
 * one node is left, which is written to the tree's root page. No free space is left for later
 * inserts; SQLite rebalances pages when it writes, so a packed tree is simply a full one.
 */

/** SQLite-WASM's own default: five 384-d vectors fit a page, where 4096 holds two. */
export const PAGE_SIZE = 8192;
/** No bytes are reserved at the end of a page, so the whole page is usable. */
const USABLE = PAGE_SIZE;

const LEAF_TABLE = 0x0d;
const INTERIOR_TABLE = 0x05;
const LEAF_INDEX = 0x0a;
const INTERIOR_INDEX = 0x02;

/** Hands out page numbers (1-based) and collects the pages written to them. */
export class Pager {
  readonly #pages: Array<Uint8Array | undefined> = [];

  allocate(): number {
    this.#pages.push(undefined);
    return this.#pages.length;
  }

  write(no: number, page: Uint8Array): void {
    this.#pages[no - 1] = page;
  }

  get count(): number {
    return this.#pages.length;
  }

  /** The file: every allocated page must have been written. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.#pages.length * PAGE_SIZE);
    this.#pages.forEach((page, i) => {
      if (!page) throw new Error(`page ${i + 1} was allocated but never written`);
      out.set(page, i * PAGE_SIZE);
    });
    return out;
  }
}

/** How much of a payload stays in its cell; the rest spills to overflow pages (the file format's formula). */
function localSize(payloadSize: number, index: boolean): number {
  const maxLocal = index ? Math.floor(((USABLE - 12) * 64) / 255) - 23 : USABLE - 35;
  if (payloadSize <= maxLocal) return payloadSize;
  const minLocal = Math.floor(((USABLE - 12) * 32) / 255) - 23;
  const k = minLocal + ((payloadSize - minLocal) % (USABLE - 4));
  return k <= maxLocal ? k : minLocal;
}

function writeOverflow(pager: Pager, rest: Uint8Array): number {
  const chunk = USABLE - 4;
  const pages = Array.from({ length: Math.ceil(rest.length / chunk) }, () => pager.allocate());
  pages.forEach((no, i) => {
    const page = new Uint8Array(PAGE_SIZE);
    new DataView(page.buffer).setUint32(0, pages[i + 1] ?? 0);
    page.set(rest.subarray(i * chunk, (i + 1) * chunk), 4);
    pager.write(no, page);
  });
  return pages[0]!;
}

/** `[varint size][prefix][local payload][first overflow page]`; `prefix` is a table leaf's rowid. */
function payloadCell(pager: Pager, payload: Uint8Array, index: boolean, prefix: Uint8Array): Uint8Array {
  const local = localSize(payload.length, index);
  const spills = local < payload.length;
  const cell = new Uint8Array(varintLength(BigInt(payload.length)) + prefix.length + local + (spills ? 4 : 0));
  let pos = writeVarint(cell, 0, BigInt(payload.length));
  cell.set(prefix, pos);
  pos += prefix.length;
  cell.set(payload.subarray(0, local), pos);
  if (spills) new DataView(cell.buffer).setUint32(pos + local, writeOverflow(pager, payload.subarray(local)));
  return cell;
}

function varintBytes(value: bigint): Uint8Array {
  const out = new Uint8Array(varintLength(value));
  writeVarint(out, 0, value);
  return out;
}

function withChild(child: number, rest: Uint8Array): Uint8Array {
  const cell = new Uint8Array(4 + rest.length);
  new DataView(cell.buffer).setUint32(0, child);
  cell.set(rest, 4);
  return cell;
}

function headerSize(interior: boolean): number {
  return interior ? 12 : 8;
}

function fits(cells: readonly Uint8Array[], interior: boolean, offset: number): boolean {
  let used = offset + headerSize(interior);
  for (const c of cells) used += c.length + 2;
  return used <= USABLE;
}

/** One page: header at `offset` (100 on page 1, after the file header), cell pointers, cells packed at the end. */
function page(flag: number, cells: readonly Uint8Array[], rightChild: number | null, offset: number): Uint8Array {
  const bytes = new Uint8Array(PAGE_SIZE);
  const view = new DataView(bytes.buffer);
  const interior = rightChild !== null;
  let content = USABLE;
  bytes[offset] = flag;
  view.setUint16(offset + 3, cells.length);
  cells.forEach((cell, i) => {
    content -= cell.length;
    bytes.set(cell, content);
    view.setUint16(offset + headerSize(interior) + 2 * i, content);
  });
  view.setUint16(offset + 5, content === 65536 ? 0 : content);
  if (interior) view.setUint32(offset + 8, rightChild);
  return bytes;
}

/** Rows sorted by ascending rowid; the root page is already allocated (page 1 passes offset 100). */
export function writeTableTree(pager: Pager, root: number, rows: ReadonlyArray<{ rowid: bigint; payload: Uint8Array }>, offset = 0): void {
  const cells = rows.map((r) => payloadCell(pager, r.payload, false, varintBytes(r.rowid)));
  if (fits(cells, false, offset)) {
    pager.write(root, page(LEAF_TABLE, cells, null, offset));
    return;
  }
  // A table b-tree keeps rows in leaves only; an interior cell holds a child and the largest rowid under it.
  let level: Array<{ page: number; maxKey: bigint }> = [];
  let pending: Uint8Array[] = [];
  let used = headerSize(false);
  let pendingMax = 0n;
  const flushLeaf = () => {
    const no = pager.allocate();
    pager.write(no, page(LEAF_TABLE, pending, null, 0));
    level.push({ page: no, maxKey: pendingMax });
    pending = [];
    used = headerSize(false);
  };
  cells.forEach((cell, i) => {
    if (pending.length > 0 && used + cell.length + 2 > USABLE) flushLeaf();
    pending.push(cell);
    used += cell.length + 2;
    pendingMax = rows[i]!.rowid;
  });
  flushLeaf();

  for (;;) {
    const cellsOf = (nodes: typeof level) => nodes.slice(0, -1).map((n) => withChild(n.page, varintBytes(n.maxKey)));
    if (fits(cellsOf(level), true, offset)) {
      pager.write(root, page(INTERIOR_TABLE, cellsOf(level), level.at(-1)!.page, offset));
      return;
    }
    // Interior cells are at most 13 bytes, so hundreds fit a page: spread the nodes evenly, two or more per page.
    const perPage = Math.floor((USABLE - headerSize(true)) / (4 + 9 + 2)) + 1;
    const pages = Math.ceil(level.length / perPage);
    const next: typeof level = [];
    for (let p = 0; p < pages; p++) {
      const group = level.slice(Math.floor((p * level.length) / pages), Math.floor(((p + 1) * level.length) / pages));
      const no = pager.allocate();
      pager.write(no, page(INTERIOR_TABLE, cellsOf(group), group.at(-1)!.page, 0));
      next.push({ page: no, maxKey: group.at(-1)!.maxKey });
    }
    level = next;
  }
}

interface IndexItem {
  /** The key's cell body `[varint size][local payload][overflow]`, which moves up when it separates two pages. */
  body: Uint8Array;
  /** On interior levels, the page holding the keys before this one. */
  child: number | null;
}

/**
 * Index b-trees keep keys in interior pages too: each key that separates two pages moves up a
 * level instead of staying in either. Packs one level and returns its pages and separators.
 */
function packIndexLevel(pager: Pager, items: readonly IndexItem[], rightmost: number | null): { pages: number[]; separators: Uint8Array[] } {
  const interior = rightmost !== null;
  const cellOf = (item: IndexItem) => (interior ? withChild(item.child!, item.body) : item.body);
  const pages: number[] = [];
  const separators: Uint8Array[] = [];
  let current: Uint8Array[] = [];
  let last: IndexItem | null = null;
  let used = headerSize(interior);
  const close = (separator: IndexItem | null) => {
    const no = pager.allocate();
    pager.write(no, page(interior ? INTERIOR_INDEX : LEAF_INDEX, current, interior ? (separator ? separator.child! : rightmost) : null, 0));
    pages.push(no);
    if (separator) separators.push(separator.body);
    current = [];
    used = headerSize(interior);
  };
  const add = (item: IndexItem, cell: Uint8Array) => {
    current.push(cell);
    used += cell.length + 2;
    last = item;
  };
  items.forEach((item, i) => {
    const cell = cellOf(item);
    if (used + cell.length + 2 <= USABLE) {
      add(item, cell);
      return;
    }
    if (i === items.length - 1) {
      // The last key cannot be a separator: nothing would follow it. Its predecessor separates instead.
      // A page holds at least three keys (a cell's local part is capped near a quarter page), so one remains.
      current.pop();
      close(last);
      add(item, cell);
    } else {
      close(item);
    }
  });
  close(null);
  return { pages, separators };
}

/** Keys (index records) already sorted in the index's order; the root page is already allocated. */
export function writeIndexTree(pager: Pager, root: number, keys: readonly Uint8Array[]): void {
  let items: IndexItem[] = keys.map((k) => ({ body: payloadCell(pager, k, true, new Uint8Array(0)), child: null }));
  let rightmost: number | null = null;
  for (;;) {
    const interior = rightmost !== null;
    const cells = items.map((item) => (interior ? withChild(item.child!, item.body) : item.body));
    if (fits(cells, interior, 0)) {
      pager.write(root, page(interior ? INTERIOR_INDEX : LEAF_INDEX, cells, rightmost, 0));
      return;
    }
    const level = packIndexLevel(pager, items, rightmost);
    items = level.separators.map((body, i) => ({ body, child: level.pages[i]! }));
    rightmost = level.pages.at(-1)!;
  }
}
