/** The README stays in step with the code: every setting and every CLI command is documented. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/config.js';
import { TOOL_NAMES } from '../../src/ops/registry.js';
import { ROOT } from '../helpers/app.js';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('opens with the two set-up commands', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = firstBlock.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^npm ci && npm start\b/);
    expect(lines[1]).toMatch(/^npm ci && npm test\b/);
  });

  it('documents every setting in the configuration table', () => {
    for (const s of Object.values(SETTINGS)) {
      expect(readme).toMatch(new RegExp(`\\|\\s*\`${s.env}\`\\s*\\|\\s*\`${s.flag}\`\\s*\\|`));
    }
  });

  it('names every MCP tool in docs/mcp.md', () => {
    const mcpDoc = fs.readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
    for (const tool of TOOL_NAMES) expect(mcpDoc).toContain(`\`${tool}\``);
  });
});
