/** Test helper: the MCP SDK's real client connected in memory to an app's MCP server. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { App } from '../../src/app.js';
import { buildMcpServer } from '../../src/mcp/server.js';

/** A connected client for `app` (the local caller: no key), optionally offering sampling. */
export async function connectMcp(app: App, options: { sampling?: boolean; betas?: string[] } = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(app, { caller: null, betas: new Set(options.betas ?? []) }).connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: options.sampling ? { sampling: {} } : {} }); // prettier-ignore
  await client.connect(clientSide);
  return client;
}
