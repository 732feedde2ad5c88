/** Trawl as a library: build an app, serve it over HTTP, or put its MCP server on any transport. */
export { createApp, type App, type AppOptions } from './compose/app.js';
export { loadConfig, ConfigError, SETTINGS, type Config, type ConfigFlags } from './config/config.js';
export { startHttpServer, createHttpApp, type RunningServer } from './http/server.js';
export { buildMcpServer } from './mcp/server.js';
export { OPERATIONS } from './ops/registry.js';
export { ALL_TOOLS, TOOL_GROUPS } from './mcp/catalog.js';
export { resolveTools } from './mcp/selection.js';
export { ServiceError, type ErrorTag } from './errors.js';
export { TAG_STATUS } from './http/status.js';
export { VERSION } from './version.js';
