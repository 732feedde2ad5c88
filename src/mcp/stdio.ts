/** `trawl mcp`: the MCP door over stdio. stdout carries only the protocol; logs go to stderr. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { App } from '../app.js';
import { buildMcpServer } from './server.js';

/** Serves MCP on stdin/stdout until the client closes the stream; resolves when done. */
export async function serveStdio(app: App): Promise<void> {
  const server = buildMcpServer(app, { caller: null, betas: new Set(app.config.mcpBetas) });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  app.logger.info({ tools: app.config.tools.length || 'all' }, 'mcp stdio ready');
  await closed;
  await server.close();
}
