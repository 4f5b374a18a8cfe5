/**
 * The lexical index's documents added since its base: per term, a plain array of pairs
 * `shortId, term frequency`. Short ids are handed out in sequence, so appending keeps each list in
 * increasing short id order, and the walk and the lookup by halving that read the base's flat
 * arrays read these as they are (`FlatPostings`).
 *
 * Why not minisearch's maps, which this layer was: adding to them (its radix tree of terms, a map
 * per term and one per posting list) took a quarter of an ingest's time at 100k memories, and its
 * postings took ~60 bytes of heap each (73 MiB for 1.2M at 100k memories, the maps per term
 * included) against 16 here, two small integers. The scores do not change: minisearch counts a
 * field's length as its distinct terms and a term's frequency as its repeats, and so does `add`.
 */
import { FlatPostings } from './frozen-postings.js';
import type { CheckedState, FlatState } from './minisearch-state.js';
import type { DocTable } from './term-scores.js';
import { tokenize } from './tokenizer.js';

export class AddedPostings {
  /** The first short id this layer hands out: the base's `nextId`. */
  readonly from: number;
  readonly #lists = new Map<string, number[]>();
  /** Memory number → short id, in increasing short id order (a re-added number is a new, later id). */
  readonly #shortIds = new Map<number, number>();
  #nextId: number;

  constructor(from: number) {
    this.from = from;
    this.#nextId = from;
  }

  /**
   * The layer a save wrote (`flat`, checked by `checkFlatState`, which found `checked`), its
   * documents recorded in `docs`; throws when its short ids are not this layer's, from `from` up
   * in increasing order, or a term's pairs are not in that order.
   */
  static restore(from: number, flat: FlatState, checked: CheckedState, docs: DocTable): AddedPostings {
    if (!checked.sorted) throw new Error('the added postings are not in short id order');
    if (!(flat.nextId >= from)) throw new Error(`the added documents' next short id ${flat.nextId} is below the base's ${from}`);
    const layer = new AddedPostings(from);
    layer.#nextId = flat.nextId;
    let previous = from - 1;
    for (let i = 0; i < flat.docs.length; i += 3) {
      const shortId = flat.docs[i]!;
      if (!(shortId > previous)) throw new Error(`added document ${i / 3} has short id ${shortId}, not above ${previous}`);
      previous = shortId;
      layer.#shortIds.set(flat.docs[i + 1]!, shortId);
      docs.put(shortId, flat.docs[i + 1]!, flat.docs[i + 2]!);
    }
    const { postings } = flat;
    flat.terms.forEach((term, t) => {
      const at = checked.offsets[t]!;
      const list: number[] = new Array(2 * postings[at]!);
      for (let j = 0; j < list.length; j++) list[j] = postings[at + 1 + j]!;
      layer.#lists.set(term, list);
    });
    return layer;
  }

  /** This layer as a flat state (terms in increasing order), as a save writes it; `docs` holds its documents' lengths. */
  flat(docs: DocTable): FlatState {
    const triples: number[] = [];
    for (const [no, shortId] of this.#shortIds) triples.push(shortId, no, docs.lengthOf(shortId));
    const terms = [...this.#lists.keys()].sort();
    const postings: number[] = [];
    for (const term of terms) {
      const list = this.#lists.get(term)!;
      postings.push(list.length / 2);
      for (const number of list) postings.push(number);
    }
    return { documentCount: this.#shortIds.size, nextId: this.#nextId, averageFieldLength: 0, docs: triples, terms, postings };
  }

  /** The short id the next document gets. */
  get nextId(): number {
    return this.#nextId;
  }

  /** Documents this layer holds. */
  get documentCount(): number {
    return this.#shortIds.size;
  }

  shortIdOf(no: number): number | undefined {
    return this.#shortIds.get(no);
  }

  /** Terms some document of this layer holds. */
  terms(): IterableIterator<string> {
    return this.#lists.keys();
  }

  /** Each term with its pairs `shortId, term frequency`. */
  lists(): IterableIterator<[string, readonly number[]]> {
    return this.#lists.entries();
  }

  /** Memory number and short id of each document held, in increasing short id order. */
  documents(): IterableIterator<[number, number]> {
    return this.#shortIds.entries();
  }

  postings(term: string): FlatPostings | undefined {
    const list = this.#lists.get(term);
    return list === undefined ? undefined : new FlatPostings(list, 0, list.length / 2);
  }

  /** Indexes `text` under `no`, which no layer holds, records it in `docs`, and returns its length. */
  add(no: number, text: string, docs: DocTable): number {
    const shortId = this.#nextId++;
    const lists = this.#lists;
    let length = 0;
    for (const term of tokenize(text)) {
      const list = lists.get(term);
      if (list === undefined) {
        lists.set(term, [shortId, 1]);
        length++;
      } else if (list[list.length - 2] === shortId) {
        // A repeat: this document's pair is the list's last, as it is the newest document.
        list[list.length - 1]!++;
      } else {
        list.push(shortId, 1);
        length++;
      }
    }
    this.#shortIds.set(no, shortId);
    docs.put(shortId, no, length);
    return length;
  }

  /**
   * Removes `no`, which this layer holds, given its text's distinct `terms`; false when it was
   * indexed with other terms, and its postings were found by a look in every list instead.
   */
  remove(no: number, terms: ReadonlySet<string>, docs: DocTable): boolean {
    const shortId = this.#shortIds.get(no)!;
    const lists = this.#lists;
    const exact = docs.lengthOf(shortId) === terms.size && [...terms].every((term) => pairAt(lists.get(term), shortId) >= 0);
    const cut = (list: number[], term: string): void => {
      const at = pairAt(list, shortId);
      if (at < 0) return;
      list.splice(at, 2);
      if (list.length === 0) lists.delete(term);
    };
    if (exact) for (const term of terms) cut(lists.get(term)!, term);
    else lists.forEach(cut);
    this.#shortIds.delete(no);
    docs.forget(shortId);
    return exact;
  }
}

/** Where the pair of `shortId` starts in `list`, or −1. */
function pairAt(list: number[] | undefined, shortId: number): number {
  return list === undefined ? -1 : new FlatPostings(list, 0, list.length / 2).pairAt(shortId);
}
