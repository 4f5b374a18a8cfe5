import type MiniSearch from 'minisearch';
import { FrozenPostings } from '../../src/legs/lexical/frozen-postings.js';
import { mergeState } from '../../src/legs/lexical/merge-state.js';
import { internals, type FlatState } from '../../src/legs/lexical/minisearch-state.js';
import { DocTable, type TermSource } from '../../src/legs/lexical/term-scores.js';

type Mini = MiniSearch<{ no: number; text: string }>;

/** The `text` field of a minisearch index, read in place: the reference the lexical index's own sources are held to. */
export function minisearchSource(index: Mini): TermSource {
  const mini = internals(index);
  return {
    get documentCount() {
      return index.documentCount;
    },
    get averageLength() {
      return mini._avgFieldLength[0]!;
    },
    get lingering() {
      return mini._dirtCount;
    },
    postings: (term) => mini._index.get(term)?.get(0),
  };
}

/** The flat state read in place, with the document table beside it, as a loaded index reads it. */
export function frozenOf(index: Mini): { frozen: FrozenPostings; table: DocTable; flat: FlatState } {
  const { state, checked } = mergeState(null, index, DocTable.of(index), index.documentCount, internals(index)._avgFieldLength[0] ?? 0);
  return { frozen: FrozenPostings.of(state, checked)!, table: DocTable.fromDocs(state.docs, state.nextId), flat: state };
}
