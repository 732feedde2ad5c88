/**
 * The full reference of each served tool as an MCP resource, `trawl://tools/{name}`: its description
 * and every argument it accepts (the endpoint's whole schema), which tools/list leaves out.
 */
import { ProtocolError, ProtocolErrorCode, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { TOOL_SPECS } from './catalog.js';
import { fullInputSchema } from './tools.js';

const PREFIX = 'trawl://tools/';

/** Registers the `trawl://tools/{name}` template, listing the tools this server serves. */
export function registerToolReference(server: McpServer, names: readonly string[]): void {
  const specs = TOOL_SPECS.filter((t) => names.includes(t.name));
  const template = new ResourceTemplate(`${PREFIX}{name}`, {
    list: () => ({
      resources: specs.map((t) => ({
        uri: `${PREFIX}${t.name}`,
        name: t.name,
        title: `${t.title}: reference`,
        mimeType: 'text/markdown',
      })),
    }),
  });
  server.registerResource(
    'tool-reference',
    template,
    {
      title: 'Tool reference',
      description: 'Every argument a tool accepts, with its limits.',
      mimeType: 'text/markdown',
    },
    (uri, variables) => {
      const name = String([variables.name].flat()[0] ?? '');
      const spec = specs.find((t) => t.name === name);
      if (!spec)
        throw new ProtocolError(
          ProtocolErrorCode.ResourceNotFound,
          `NOT_FOUND: no tool ${name} on this server (it serves ${names.join(', ')})`,
        );
      const text =
        `# ${spec.name}: ${spec.title}\n\n${spec.description}\n\n` +
        'Answers fit `maxTokens` (default 6000); a cut answer ends with a `nextCursor` to pass as `cursor` ' +
        'with the same arguments. Every argument accepted (JSON Schema):\n\n```json\n' +
        `${JSON.stringify(fullInputSchema(name), null, 1)}\n\`\`\`\n`;
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
    },
  );
}
