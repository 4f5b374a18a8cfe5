/**
 * An independent reference for the ONNX conversion: a plain float64 BERT forward pass over the
 * original model.safetensors (HF BertModel semantics), mean pooling and L2 normalisation, exactly as
 * sentence-transformers computes all-MiniLM-L6-v2. No ONNX, no onnxruntime. One sentence at a time,
 * unpadded, so the attention mask is trivially all ones: comparing it with the batched, padded ONNX
 * path is what catches masking bugs.
 */
import { readFile } from 'node:fs/promises';

export interface Tensor {
  shape: number[];
  data: Float32Array;
}

export interface BertConfig {
  hidden_size: number;
  num_attention_heads: number;
  num_hidden_layers: number;
  intermediate_size: number;
  layer_norm_eps?: number;
}

/** Reads the F32 tensors of a safetensors file (8-byte LE header length, JSON header, raw data). */
export async function readSafetensors(path: string): Promise<Map<string, Tensor>> {
  const bytes = await readFile(path);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const base = 8 + headerLength;
  const tensors = new Map<string, Tensor>();
  for (const [name, meta] of Object.entries(header)) {
    if (name === '__metadata__' || meta.dtype !== 'F32') continue;
    const [start, end] = meta.data_offsets;
    // copy: the data may sit at an offset a Float32Array cannot view
    const copy = new Uint8Array(bytes.subarray(base + start, base + end));
    tensors.set(name.replace(/^bert\./, ''), { shape: meta.shape, data: new Float32Array(copy.buffer) });
  }
  return tensors;
}

/** erf to ~1e-15: Taylor series near 0, continued fraction for erfc further out. */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax >= 6) return Math.sign(x);
  if (ax < 2.5) {
    let term = x;
    let sum = x;
    for (let n = 1; n < 100; n++) {
      term *= (-x * x) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc(x) = exp(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), evaluated from the tail
  let frac = ax;
  for (let k = 80; k >= 1; k--) frac = ax + k / 2 / frac;
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / frac;
  return Math.sign(x) * (1 - erfc);
}

function weight(w: Map<string, Tensor>, name: string): Float32Array {
  const t = w.get(name);
  if (!t) throw new Error(`reference: checkpoint has no tensor ${name}`);
  return t.data;
}

/** y[t] = x[t] · Wᵀ + b for HF Linear weights stored [out, in]. */
function linear(x: Float64Array, rows: number, inDim: number, W: Float32Array, b: Float32Array, outDim: number): Float64Array {
  const y = new Float64Array(rows * outDim);
  for (let t = 0; t < rows; t++) {
    const xo = t * inDim;
    for (let o = 0; o < outDim; o++) {
      let acc = b[o]!;
      const wo = o * inDim;
      for (let i = 0; i < inDim; i++) acc += x[xo + i]! * W[wo + i]!;
      y[t * outDim + o] = acc;
    }
  }
  return y;
}

function layerNorm(x: Float64Array, rows: number, dim: number, gamma: Float32Array, beta: Float32Array, eps: number): void {
  for (let t = 0; t < rows; t++) {
    const o = t * dim;
    let mean = 0;
    for (let i = 0; i < dim; i++) mean += x[o + i]!;
    mean /= dim;
    let variance = 0;
    for (let i = 0; i < dim; i++) variance += (x[o + i]! - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / dim + eps);
    for (let i = 0; i < dim; i++) x[o + i] = (x[o + i]! - mean) * inv * gamma[i]! + beta[i]!;
  }
}

/** The sentence embedding of one token sequence: BertModel → mean over tokens → L2 normalise. */
export function referenceEmbedding(w: Map<string, Tensor>, cfg: BertConfig, ids: number[]): Float64Array {
  const H = cfg.hidden_size;
  const heads = cfg.num_attention_heads;
  const hd = H / heads;
  const eps = cfg.layer_norm_eps ?? 1e-12;
  const S = ids.length;
  const words = weight(w, 'embeddings.word_embeddings.weight');
  const positions = weight(w, 'embeddings.position_embeddings.weight');
  const types = weight(w, 'embeddings.token_type_embeddings.weight');
  let x: Float64Array = new Float64Array(S * H);
  for (let t = 0; t < S; t++) {
    for (let i = 0; i < H; i++) x[t * H + i] = words[ids[t]! * H + i]! + positions[t * H + i]! + types[i]!;
  }
  layerNorm(x, S, H, weight(w, 'embeddings.LayerNorm.weight'), weight(w, 'embeddings.LayerNorm.bias'), eps);

  for (let l = 0; l < cfg.num_hidden_layers; l++) {
    const p = `encoder.layer.${l}.`;
    const lin = (input: Float64Array, name: string, inDim: number, outDim: number) =>
      linear(input, S, inDim, weight(w, `${p}${name}.weight`), weight(w, `${p}${name}.bias`), outDim);
    const q = lin(x, 'attention.self.query', H, H);
    const k = lin(x, 'attention.self.key', H, H);
    const v = lin(x, 'attention.self.value', H, H);
    const ctx = new Float64Array(S * H);
    const scores = new Float64Array(S);
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < S; i++) {
        let max = -Infinity;
        for (let j = 0; j < S; j++) {
          let dot = 0;
          for (let d = 0; d < hd; d++) dot += q[i * H + h * hd + d]! * k[j * H + h * hd + d]!;
          scores[j] = dot / Math.sqrt(hd);
          if (scores[j]! > max) max = scores[j]!;
        }
        let sum = 0;
        for (let j = 0; j < S; j++) sum += scores[j] = Math.exp(scores[j]! - max);
        for (let d = 0; d < hd; d++) {
          let acc = 0;
          for (let j = 0; j < S; j++) acc += scores[j]! * v[j * H + h * hd + d]!;
          ctx[i * H + h * hd + d] = acc / sum;
        }
      }
    }
    const attn = lin(ctx, 'attention.output.dense', H, H);
    for (let i = 0; i < S * H; i++) attn[i] = attn[i]! + x[i]!;
    layerNorm(attn, S, H, weight(w, `${p}attention.output.LayerNorm.weight`), weight(w, `${p}attention.output.LayerNorm.bias`), eps);
    const inter = lin(attn, 'intermediate.dense', H, cfg.intermediate_size);
    for (let i = 0; i < inter.length; i++) inter[i] = 0.5 * inter[i]! * (1 + erf(inter[i]! / Math.SQRT2));
    const out = lin(inter, 'output.dense', cfg.intermediate_size, H);
    for (let i = 0; i < S * H; i++) out[i] = out[i]! + attn[i]!;
    layerNorm(out, S, H, weight(w, `${p}output.LayerNorm.weight`), weight(w, `${p}output.LayerNorm.bias`), eps);
    x = out;
  }

  const pooled = new Float64Array(H);
  for (let t = 0; t < S; t++) for (let i = 0; i < H; i++) pooled[i] = pooled[i]! + x[t * H + i]! / S;
  const norm = Math.sqrt(pooled.reduce((s, a) => s + a * a, 0));
  return pooled.map((a) => a / norm);
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}
