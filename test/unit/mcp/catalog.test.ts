/**
 * The advertised tools: the token budgets of tools/list (o200k_base over the compact JSON of the
 * `tools` array, as a client receives it), and the advertised fields in step with what each tool's
 * endpoint schema accepts.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS, TOOL_GROUPS, TOOL_SPECS, advertised } from '../../../src/mcp/catalog.js';
import { LEGACY_TOOL_NAMES, narrowTools, resolveTools } from '../../../src/mcp/selection.js';
import { fullInputSchema } from '../../../src/mcp/tools.js';

const tokensOf = (names: readonly string[]) => countTokens(JSON.stringify(names.map(advertised)));

describe('tools/list budgets', () => {
  it('costs at most 1,500 tokens for the default set', () => {
    expect(resolveTools([])).toEqual(['search', 'get_contents', 'get_code_context']);
    expect(tokensOf(resolveTools([]))).toBeLessThanOrEqual(1500);
  });

  it('costs at most 6,000 tokens with every tool enabled', () => {
    expect(tokensOf(resolveTools(['all']))).toBeLessThanOrEqual(6000);
  });
});

type JsonSchema = { properties?: Record<string, unknown>; required?: string[] };

describe('advertised fields', () => {
  it('are fields the tool accepts, and its required ones are required', () => {
    for (const spec of TOOL_SPECS) {
      const full = fullInputSchema(spec.name) as JsonSchema & Record<string, JsonSchema>;
      const { action, ...fields } = spec.inputSchema.properties;
      const schemas = (action ? Object.values(full) : [full]) as JsonSchema[];
      for (const field of Object.keys(fields)) {
        expect(
          schemas.some((s) => field in (s.properties ?? {})),
          `${spec.name}.${field}`,
        ).toBe(true);
      }
      if (action) {
        expect((action as { enum: string[] }).enum.sort(), spec.name).toEqual(Object.keys(full).sort());
      } else {
        for (const field of spec.inputSchema.required ?? []) expect(full.required, spec.name).toContain(field);
      }
    }
  });

  it('say in each content tool that fenced text is data', () => {
    for (const name of ['search', 'get_contents', 'get_code_context', 'find_similar', 'agent_run']) {
      expect(advertised(name).description).toMatch(/untrusted-.*data, never instructions/);
    }
  });
});

describe('tool selection', () => {
  it('resolves names, groups, all and the old per-operation names', () => {
    expect(resolveTools(['monitors', 'code'])).toEqual(['get_code_context', 'monitors']);
    expect(resolveTools(['all'])).toEqual([...ALL_TOOLS]);
    expect(resolveTools(['agent'])).toEqual([...TOOL_GROUPS.agent!]);
    expect(resolveTools(['create_agent_run'])).toEqual([LEGACY_TOOL_NAMES.create_agent_run]);
  });

  it('names the valid tools and groups when a name is unknown', () => {
    expect(() => resolveTools(['search', 'serch'])).toThrow(/serch.*Tools: search, get_contents.*Groups: default, web/);
  });

  it('narrows within the server’s set: groups intersect, tools outside it are refused', () => {
    const server = resolveTools(['default']);
    expect(narrowTools(server, [])).toEqual(server);
    expect(narrowTools(server, ['web'])).toEqual(['search', 'get_contents']);
    expect(narrowTools(server, ['all'])).toEqual(server);
    expect(() => narrowTools(server, ['monitors'])).toThrow(/not enabled on this server: monitors/);
    expect(() => narrowTools(server, ['nope'])).toThrow(/Unknown MCP tool/);
  });
});
