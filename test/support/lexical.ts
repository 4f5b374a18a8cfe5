import type { FrozenPostings } from '../../src/legs/lexical/frozen-postings.js';
import { LayeredPostings } from '../../src/legs/lexical/layered-postings.js';
import { DocTable } from '../../src/legs/lexical/term-scores.js';

/**
 * `texts` indexed under their positions as memory numbers, then `removed` removed with their
 * texts: the lists of an index that has not folded yet (fewer than 8,192 texts), or its layers.
 */
export function layeredOf(texts: readonly string[], removed: Iterable<number> = []): LayeredPostings {
  const layered = LayeredPostings.empty();
  texts.forEach((text, no) => layered.add(no, text));
  for (const no of new Set(removed)) if (no < texts.length) layered.remove(no, texts[no]!);
  return layered;
}

/** The same folded into the flat state a save writes, read in place with its document table, as a loaded index reads them. */
export function frozenOf(texts: readonly string[], removed: Iterable<number> = []): { frozen: FrozenPostings; table: DocTable } {
  const frozen = layeredOf(texts, removed).fold();
  return { frozen, table: DocTable.fromDocs(frozen.state.docs, frozen.state.nextId) };
}
