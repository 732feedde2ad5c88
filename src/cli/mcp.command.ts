/** `trawl mcp`: MCP over stdio, no key needed (the user's own process). */
import { createApp } from '../app.js';
import type { Config } from '../config/config.js';
import { checkToolsSetting } from '../mcp/selection.js';
import { serveStdio } from '../mcp/stdio.js';

export async function runMcp(config: Config): Promise<void> {
  checkToolsSetting(config.tools);
  const app = createApp(config);
  app.services.semantic?.start();
  app.services.codeSemantic?.start();
  if (config.monitors) app.services.monitors.engine.start();
  app.services.agentRuns.engine.start();
  await serveStdio(app);
  await app.close();
}
