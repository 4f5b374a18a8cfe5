import { STOP_WORDS } from '../../src/legs/lexical/tokenizer.js';
import type { Doc, SpeedQuery } from '../lib/corpus.js';

/**
 * What the query set asks of a lexical index: how many terms, how many are stop words, and how
 * many postings a query touches with and without them (lowercased whitespace terms, document
 * frequency summed over a query's distinct terms).
 */
export interface TermStatistics {
  queries: number;
  meanTerms: number;
  withStopWord: number;
  onlyStopWords: number;
  meanPostingsAllTerms: number;
  meanPostingsContentTerms: number;
  medianPostingsContentTerms: number;
}

const words = (text: string) => [...new Set(text.toLowerCase().split(/\s+/).filter(Boolean))];

export function termStatistics(docs: readonly Doc[], queries: readonly SpeedQuery[]): TermStatistics {
  const wanted = new Set(queries.flatMap((q) => words(q.text)));
  const df = new Map<string, number>();
  for (const d of docs) for (const w of words(d.text)) if (wanted.has(w)) df.set(w, (df.get(w) ?? 0) + 1);
  const postings = (ts: string[]) => ts.reduce((s, t) => s + (df.get(t) ?? 0), 0);
  const perQuery = queries.map((q) => {
    const all = words(q.text);
    const content = all.filter((t) => !STOP_WORDS.has(t));
    return { all, content, allPostings: postings(all), contentPostings: postings(content) };
  });
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  const content = perQuery.map((q) => q.contentPostings).sort((a, b) => a - b);
  return {
    queries: queries.length,
    meanTerms: mean(perQuery.map((q) => q.all.length)),
    withStopWord: perQuery.filter((q) => q.content.length < q.all.length).length,
    onlyStopWords: perQuery.filter((q) => q.content.length === 0).length,
    meanPostingsAllTerms: mean(perQuery.map((q) => q.allPostings)),
    meanPostingsContentTerms: mean(content),
    medianPostingsContentTerms: content[Math.floor(content.length / 2)] ?? 0,
  };
}
