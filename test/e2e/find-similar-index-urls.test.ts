/**
 * /findSimilar seeded by a document of the index whatever its URL's scheme (an imported record's
 * `import://<collection>/<id>`, as search returns it), over REST and the MCP tool; a URL of another
 * scheme that names no indexed document is a 400 naming `url`, and is never fetched: a loopback server
 * the private-network allowlist would let an http(s) fetch reach sees no connection.
 */
import net from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { connectMcp, type ToolResult } from '../helpers/mcp.js';

const imported = (id: string, title: string, text: string) =>
  storedDoc(`import://scifact/${id}`, title, text, { origin: 'import', collection: 'scifact', kind: 'text' });

let t: TestServer;
let listener: net.Server;
let port: number;
let connections = 0;
let client: Client;

beforeAll(async () => {
  listener = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
  t = await startTestServer({ privateAllowlist: ['127.0.0.1'] });
  await t.app.services.documents.upsertMany(
    [
      imported('4983', 'Newborn cerebral white matter', 'Diffusion tensor MRI of preterm infants: the apparent diffusion coefficient of white matter falls with age.'), // prettier-ignore
      imported('5836', 'White matter injury in preterm infants', 'Preterm infants imaged with diffusion tensor MRI show white matter injury and a raised apparent diffusion coefficient.'), // prettier-ignore
      storedDoc('https://bakery.example.com/sourdough', 'Sourdough', 'Lactic acid bacteria ferment the dough.'),
    ],
    '2026-11-20T10:00:00.000Z',
  );
  client = await connectMcp(t.app, { tools: ['find_similar'] });
});
afterAll(async () => {
  await client?.close();
  await t.close();
  await new Promise((resolve) => listener.close(resolve));
});

const similar = (body: Record<string, unknown>) => postJson(t.url, '/findSimilar', body, { 'x-api-key': t.key });
const urls = (body: Record<string, unknown>) => (body.results as { url: string }[]).map((r) => r.url);

describe('/findSimilar from a document of the index', () => {
  it('takes an imported record by its import:// URL, leaving the record itself out', async () => {
    const res = await similar({ url: 'import://scifact/4983', numResults: 3, contents: { text: true } });
    expect(res.status).toBe(200);
    expect(urls(res.body)[0]).toBe('import://scifact/5836');
    expect(urls(res.body)).not.toContain('import://scifact/4983');
    expect((res.body.results as { text?: string }[])[0]!.text).toContain('white matter injury');
  });

  it('does the same through the MCP find_similar tool', async () => {
    const result = (await client.callTool({ name: 'find_similar', arguments: { url: 'import://scifact/4983', numResults: 2 } })) as ToolResult; // prettier-ignore
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent!.results as { url: string }[])[0]!.url).toBe('import://scifact/5836');
  });

  it.each(['import://scifact/0000', `ftp://127.0.0.1:${0}/file`, 'file:///etc/passwd', `gopher://127.0.0.1:${0}/_GET`])(
    'refuses %s with 400 naming url, opening no connection',
    async (template) => {
      const url = template.replace(':0/', `:${port}/`);
      const res = await similar({ url });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ tag: 'INVALID_REQUEST_BODY' });
      expect(res.body.error).toBe(
        `url: ${url} is not a document of the index, and only http(s) URLs are fetched; give an http(s) URL or the URL of an indexed document as search returns it (e.g. import://collection/id)`,
      );
      expect(connections).toBe(0);
    },
  );

  it('still reads http(s) URLs live (the same listener is reachable that way)', async () => {
    const res = await similar({ url: `http://127.0.0.1:${port}/page` });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ tag: 'FETCH_DOCUMENT_ERROR' });
    expect(connections).toBeGreaterThan(0);
  });
});
