import { RemoteEmbedder, WorkersAiEmbedder, type Embedder, type WorkersAiBinding } from 'hybridmind/edge';

export interface EmbedderEnv {
  /** A Workers AI binding (`[ai] binding = "AI"`): used first when present. */
  AI?: WorkersAiBinding;
  /** Otherwise an OpenAI-compatible (or TEI) server. */
  EMBEDDINGS_URL?: string;
  EMBEDDINGS_MODEL?: string;
  EMBEDDINGS_API?: string;
  EMBEDDINGS_DIM?: string;
  /** A secret (`wrangler secret put EMBEDDINGS_KEY`), sent as a bearer token. */
  EMBEDDINGS_KEY?: string;
  /** A service binding that reaches the server (local workerd: an external service); else the global fetch. */
  EMBEDDINGS?: { fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> };
}

/** No embedder configured: memories and queries must carry their vectors (`embedding`, `queryEmbedding`). */
export async function embedderFrom(env: EmbedderEnv): Promise<Embedder | null> {
  if (env.AI) return new WorkersAiEmbedder({ ai: env.AI });
  if (!env.EMBEDDINGS_URL) return null;
  const service = env.EMBEDDINGS;
  return RemoteEmbedder.create({
    url: env.EMBEDDINGS_URL,
    api: env.EMBEDDINGS_API === 'tei' ? 'tei' : 'openai',
    ...(env.EMBEDDINGS_MODEL ? { model: env.EMBEDDINGS_MODEL } : {}),
    ...(env.EMBEDDINGS_DIM ? { dim: Number(env.EMBEDDINGS_DIM) } : {}),
    ...(env.EMBEDDINGS_KEY ? { headers: { authorization: `Bearer ${env.EMBEDDINGS_KEY}` } } : {}),
    ...(service ? { fetch: ((input: RequestInfo | URL, init?: RequestInit) => service.fetch(input, init)) as typeof fetch } : {}),
  });
}
