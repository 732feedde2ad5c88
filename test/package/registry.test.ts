/**
 * What the registries read, checked here because nothing is published from this repository:
 * server.json against the MCP registry's published schema (a copy in test/fixtures/mcp-registry), in
 * step with package.json (name, version, mcpName) and with the settings it names; manifest.json through
 * the mcpb CLI's own `validate`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/config.js';
import { ROOT } from '../helpers/app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const read = (file: string): Json => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Json;
const schema = read('test/fixtures/mcp-registry/server.schema.json');
const server = read('server.json');
const pkg = read('package.json');

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
// the schema is draft-07; `example` is an OpenAPI annotation it carries, not a validation keyword
const validate = addFormats(new Ajv({ allErrors: true, strict: false })).compile(schema);

describe('server.json (MCP registry)', () => {
  it('is valid against the registry schema it names', () => {
    expect(server.$schema).toBe(schema.$id);
    expect(validate(server), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('would be refused by that schema when broken (the check can fail)', () => {
    const broken = [
      { ...server, name: 'trawl' }, // not reverse-DNS with one slash
      { ...server, description: 'x'.repeat(101) },
      { ...server, packages: [{ ...server.packages[0], version: 'latest' }] },
      { ...server, packages: [{ ...server.packages[0], transport: undefined }] },
    ];
    for (const doc of broken) expect(validate(JSON.parse(JSON.stringify(doc)))).toBe(false);
  });

  it('names the npm package as it would be published, with mcpName as the registry requires', () => {
    expect(pkg.mcpName).toBe(server.name);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toHaveLength(1);
    const [npm] = server.packages;
    expect(npm).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version });
    expect(npm.transport).toEqual({ type: 'stdio' });
    // the package's bin is trawl; its argument starts the MCP server over stdio
    expect(Object.keys(pkg.bin)).toEqual([pkg.name]);
    expect(npm.packageArguments).toEqual([{ type: 'positional', value: 'mcp' }]);
  });

  it('names only environment variables that Trawl reads', () => {
    const known = new Set(Object.values(SETTINGS).map((s) => s.env));
    for (const v of server.packages[0].environmentVariables) expect(known, v.name).toContain(v.name);
  });
});

describe('manifest.json (MCP bundle)', () => {
  it('passes `mcpb validate` (the mcpb CLI of the dev dependency)', () => {
    const cli = path.join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
    const out = execFileSync(process.execPath, [cli, 'validate', path.join(ROOT, 'manifest.json')], { encoding: 'utf8' }); // prettier-ignore
    expect(out).toMatch(/validation passes/i);
  });
});
