import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { FENCE_NOTICE } from '../../src/mcp/reply/fence.js';
import { TOOL_SPECS } from '../../src/mcp/catalog.js';
import { ROOT } from '../helpers/app.js';

describe('logger', () => {
  it('redacts keys and secrets', () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.info(
      { headers: { 'x-api-key': 'k1', authorization: 'Bearer k2' }, webhookSecret: 's3', nested: { apiKey: 'k4' } },
      'x',
    );
    expect(out).toContain('[redacted]');
    for (const secret of ['k1', 'Bearer k2', 's3', 'k4']) expect(out).not.toContain(`"${secret}"`);
  });
});

describe('manifest.json (MCP bundle)', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')) as {
    version: string;
    server: { entry_point: string; mcp_config: { args: string[] } };
    tools: { name: string; description: string }[];
    user_config: { tools: { description: string } };
  };

  it('is valid against the MCPB manifest schema', async () => {
    const require = createRequire(import.meta.url);
    const schema = require('@anthropic-ai/mcpb/mcpb-manifest-v0.3.schema.json') as object;
    const { Ajv } = await import('ajv');
    const addFormats = (await import('ajv-formats')).default as unknown as (a: InstanceType<typeof Ajv>) => void;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
  });

  it('runs `trawl mcp` from the built entry point', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
    };
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.server.entry_point).toBe(pkg.bin.trawl);
    expect(fs.existsSync(path.join(ROOT, manifest.server.entry_point))).toBe(true);
    expect(manifest.server.mcp_config.args).toEqual(['${__dirname}/dist/bin/cli.js', 'mcp']);
  });

  it('lists every tool of the catalog, in its order, described as the catalog describes it to a model', () => {
    // the fence notice is for the model reading results; a person choosing tools needs the rest
    expect(manifest.tools).toEqual(
      TOOL_SPECS.map((t) => ({ name: t.name, description: t.description.replace(FENCE_NOTICE, '').trim() })),
    );
    expect(manifest.tools.map((t) => t.name)).toEqual(['search', 'get_contents', 'get_code_context', 'find_similar', 'monitors', 'agent_run', 'agent_runs']); // prettier-ignore
    // the setting names the groups and says what an empty one serves
    expect(manifest.user_config.tools.description).toMatch(/default, web, code, monitors, agent, all/);
    expect(manifest.user_config.tools.description).toMatch(/Empty serves the default set \(search, get_contents, get_code_context\)/); // prettier-ignore
  });
});
