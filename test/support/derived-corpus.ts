import type { HybridMemory } from '../../src/index.js';

/** A few memories with identifiers, names and plain words: every leg has something to find. */
export const MEMORIES = [
  { id: 'adr7', text: 'ADR-007: keep SQLite as the source of truth for Order #4821' },
  { id: 'buddy', text: 'Buddy Hield joined the Sacramento Kings of the NBA in 2018.' },
  { id: 'invoice', text: 'Invoice INV-2024-0042 for Order #4821 was paid twice by mistake' },
  { id: 'quokka', text: 'The quokka census on Rottnest island counted 12,000 animals' },
];
const QUERIES = ['Order #4821', 'Sacramento Kings', 'quokka island', 'ADR-007'];

/** The top 3 ids and scores of each query: what a store reopened from saved indexes must answer as the original did. */
export const answers = async (mem: HybridMemory) => Promise.all(QUERIES.map(async (q) => (await mem.recall(q, { k: 3, explain: false })).map((h) => [h.id, h.score])));
