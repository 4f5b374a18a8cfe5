import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashVector } from '../../support/hash-embedder.js';

/**
 * An OpenAI-compatible `/v1/embeddings` server on 127.0.0.1 answering with the deterministic
 * hash embedder, so the Worker's RemoteEmbedder runs for real without a model or the internet.
 */
export async function startEmbeddingsServer(dim = 384): Promise<{ port: number; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests++;
      if (req.method !== 'POST' || !req.url?.endsWith('/v1/embeddings')) {
        res.writeHead(404).end();
        return;
      }
      const { input } = JSON.parse(body) as { input: string[] };
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: Array.from(hashVector(text, dim)) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
