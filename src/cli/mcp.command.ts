/**
 * `trawl mcp`: MCP over stdio, no key needed (the user's own process). The app and the door load after
 * the handshake (src/mcp/stdio.ts), so this module imports neither.
 */
import type { Transport } from '@modelcontextprotocol/server';
import type { Config } from '../config/config.js';
import { checkToolsSetting, resolveTools } from '../mcp/selection.js';
import { serveStdio, type StdioDoor } from '../mcp/stdio.js';

/**
 * Serves MCP on stdio until the client closes it, or a SIGTERM/SIGINT arrives: the app then closes as
 * for a client that left (MCP tasks end interrupted, agent runs go back to the queue) and the process exits.
 */
export async function runMcp(config: Config): Promise<void> {
  checkToolsSetting(config.tools);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await serveStdio({ tools: resolveTools(config.tools), openDoor: () => openDoor(config), stop: stop.signal });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  // stdin may still be open (the client did not close it): nothing else is left to wait for
  if (stop.signal.aborted) process.exit(0);
}

/** The app (database, services, background engines) and the door's server on it. */
async function openDoor(config: Config): Promise<StdioDoor> {
  const [{ openDoor: openOperatorDoor }, { buildMcpServer }, sdk] = await Promise.all([
    import('../compose/open.js'),
    import('../mcp/server.js'),
    import('@modelcontextprotocol/server/stdio'),
  ]);
  const app = await openOperatorDoor(config);
  try {
    app.workers.startIndexing();
    app.workers.startEngines({ monitors: config.monitors });
    const betas = new Set(config.mcpBetas);
    // the SDK pins the connection to the era of the client's opening, and builds its server for it
    const serve = (transport: Transport) =>
      sdk.serveStdio(({ era }) => buildMcpServer(app, { caller: null, betas, era }), {
        transport,
        onerror: (err) => app.logger.warn({ err }, 'mcp stdio'),
      });
    app.logger.info({ tools: resolveTools(config.tools) }, 'mcp stdio ready');
    return { serve, close: () => app.close() };
  } catch (err) {
    await app.close();
    throw err;
  }
}
