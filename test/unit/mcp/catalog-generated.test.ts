/**
 * The catalog comes from the registry: src/mcp/catalog.generated.ts is what `node scripts/catalog.mjs`
 * writes from the operations now, every MCP tool of the registry is advertised, and a group's hints
 * combine its operations' as documented.
 */
import fs from 'node:fs';
import path from 'node:path';
import prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { buildToolSpecs, catalogModuleSource } from '../../../src/mcp/catalog-build.js';
import { ALL_TOOLS, TOOL_SPECS } from '../../../src/mcp/catalog.js';
import { toolNameOf } from '../../../src/ops/define-op.js';
import { MCP_TOOLS, OPERATIONS, mcpToolName } from '../../../src/ops/registry.js';
import { groupHints } from '../../../src/ops/tool-text.js';
import { ROOT } from '../../helpers/app.js';

const FILE = path.join(ROOT, 'src/mcp/catalog.generated.ts');

describe('the generated catalog', () => {
  it('is what the registry says now (node scripts/catalog.mjs writes it)', async () => {
    const expected = await prettier.format(catalogModuleSource(buildToolSpecs()), {
      ...(await prettier.resolveConfig(FILE)),
      filepath: FILE,
    });
    expect(fs.readFileSync(FILE, 'utf8'), 'stale: run node scripts/catalog.mjs').toBe(expected);
    expect(TOOL_SPECS).toEqual(buildToolSpecs());
  });

  it('advertises every MCP tool of the registry, and each operation not REST-only belongs to one', () => {
    expect(ALL_TOOLS).toEqual(MCP_TOOLS.map(mcpToolName));
    for (const op of OPERATIONS.filter((o) => !o.restOnly)) {
      expect(ALL_TOOLS, op.name).toContain(toolNameOf(op));
      expect(op.toolGroup !== undefined || op.toolText !== undefined, `${op.name} has toolText`).toBe(true);
    }
  });
});

describe('a group’s hints', () => {
  const read = { readOnlyHint: true, openWorldHint: false };
  it('are read-only only when every operation is, destructive when any is, idempotent when all are', () => {
    expect(groupHints([read, read])).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    const remove = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
    expect(groupHints([read, remove])).toEqual({ ...remove, idempotentHint: true });
    const start = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
    expect(groupHints([read, start])).toEqual(start);
    // a write that does not say counts as destructive (the MCP default)
    expect(groupHints([{ readOnlyHint: false, openWorldHint: false }]).destructiveHint).toBe(true);
  });
});
