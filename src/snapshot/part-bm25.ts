/**
 * bm25.jsonl: what the lexical leg indexes, one memory per line as `{"id":…,"tokens":[…]}` in
 * insertion order, tokens exactly as the tokenizer emits them (repeats kept: BM25 counts them).
 * Smaller and more readable than minisearch's serialised index, and checkable: on import the
 * tokens must equal what this library's tokenizer makes of store.db's text. Written by another
 * tokenizer version, they are only checked for shape; either way the index is rebuilt from store.db.
 */
import { isPlainObject } from '../memory/validate.js';
import { tokenize, TOKENIZER_VERSION } from '../legs/lexical/tokenizer.js';
import type { StoreContent } from './content.js';
import { corrupt, type SnapshotManifest } from './format.js';
import { decodeJsonLines, encodeJsonLines } from './jsonl.js';

export type Bm25Part = Map<string, string[]>;

export function encodeBm25(content: StoreContent): Uint8Array {
  return encodeJsonLines(content.memories.map((m) => ({ id: m.id, tokens: tokenize(m.text) })));
}

export function decodeBm25(method: string, bytes: Uint8Array): Bm25Part {
  const part: Bm25Part = new Map();
  decodeJsonLines(method, 'bm25.jsonl', bytes, (value, n) => {
    const ok = isPlainObject(value) && Object.keys(value).length === 2 && typeof value['id'] === 'string'
      && Array.isArray(value['tokens']) && value['tokens'].every((t) => typeof t === 'string');
    if (!ok) throw corrupt(method, `bm25.jsonl line ${n} must be {"id":string,"tokens":[string…]}`);
    const id = value['id'] as string;
    if (part.has(id)) throw corrupt(method, `bm25.jsonl line ${n}: memory ${JSON.stringify(id)} appears twice`);
    part.set(id, value['tokens'] as string[]);
  });
  return part;
}

export function checkBm25(method: string, part: Bm25Part, content: StoreContent, manifest: SnapshotManifest): void {
  const differs = (what: string) => corrupt(method, `bm25.jsonl disagrees with store.db: ${what}`);
  if (part.size !== content.memories.length) throw differs(`${part.size} memories, store.db has ${content.memories.length}`);
  const compare = manifest.tokenizerVersion === TOKENIZER_VERSION;
  for (const m of content.memories) {
    const tokens = part.get(m.id);
    if (!tokens) throw differs(`memory ${JSON.stringify(m.id)} is missing`);
    if (!compare) continue;
    const expected = tokenize(m.text);
    if (tokens.length !== expected.length || tokens.some((t, i) => t !== expected[i])) throw differs(`the tokens of ${JSON.stringify(m.id)} are not those of its text`);
  }
}
