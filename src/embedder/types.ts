/**
 * Turns texts into vectors of a fixed dimension. One vector per text, in order, each of length `dim`.
 * `id` names the model and its settings (e.g. `Xenova/all-MiniLM-L6-v2:q8`): a store remembers it
 * and refuses to mix vectors from another model.
 *
 * @example
 * const embedder: Embedder = { id: 'my-model', dim: 384, embed: async (texts) => texts.map(myEncode) };
 */
export interface Embedder {
  readonly id: string;
  readonly dim: number;
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * Token counts by the model's own tokenizer, special tokens included. Optional: the context
   * builder uses it for token budgets and falls back to an estimate without it.
   */
  countTokens?(texts: string[]): Promise<number[]>;
}
