/**
 * A loopback embeddings server speaking the OpenAI wire format (`POST /v1/embeddings`) with a toy model:
 * words of one concept share a dimension, so "mend an automobile" is near "fix a car". It can be told
 * to fail (503) to test degraded answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EmbeddingsServer {
  /** API root to configure: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** While true, every request gets a 503. */
  failing: boolean;
  /** Embedding requests answered so far, and the texts they carried. */
  readonly calls: { requests: number; inputs: number };
  close(): Promise<void>;
}

/** The toy vector of a text: one dimension per concept, plus one for every other word (camelCase split). */
export function toyEmbedding(concepts: readonly string[][], text: string): number[] {
  const v = new Array<number>(concepts.length + 1).fill(0);
  const words =
    text
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .match(/[a-z]+/g) ?? [];
  for (const w of words) {
    const i = concepts.findIndex((c) => c.includes(w));
    v[i < 0 ? concepts.length : i]! += i < 0 ? 0.05 : 1;
  }
  return v;
}

export async function startEmbeddingsServer(concepts: readonly string[][]): Promise<EmbeddingsServer> {
  const state = { failing: false };
  const calls = { requests: 0, inputs: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (state.failing) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}');
      const { input, model } = JSON.parse(body) as { input: string[]; model: string };
      calls.requests += 1;
      calls.inputs += input.length;
      const data = input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: toyEmbedding(concepts, text),
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model, data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
