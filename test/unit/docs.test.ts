/** The README stays in step with the code: every setting and every CLI command is documented. */
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/config.js';
import { ALL_TOOLS } from '../../src/mcp/catalog.js';
import { signatureHeader } from '../../src/fetch/webhook-signing.js';
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
    for (const tool of ALL_TOOLS) expect(mcpDoc).toContain(`\`${tool}\``);
  });

  it("shows a webhook receiver's signature check that accepts Trawl's signatures and nothing else", () => {
    const block = /```js\n([\s\S]*?function verify[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const body = block!.replace(/^import .*$/m, '') + '\nreturn verify;';
    type Verify = (raw: string, header: string, secret: string, maxAge?: number) => boolean;
    const verify = new Function('createHmac', 'timingSafeEqual', body)(createHmac, timingSafeEqual) as Verify;
    const raw = JSON.stringify({ id: 'evt_1', object: 'event', type: 'monitor.created', data: {} });
    const now = Math.floor(Date.now() / 1000);
    expect(verify(raw, signatureHeader('whsec_abc', raw, now), 'whsec_abc')).toBe(true);
    expect(verify(raw + ' ', signatureHeader('whsec_abc', raw, now), 'whsec_abc')).toBe(false);
    expect(verify(raw, signatureHeader('whsec_other', raw, now), 'whsec_abc')).toBe(false);
    expect(verify(raw, signatureHeader('whsec_abc', raw, now - 600), 'whsec_abc')).toBe(false);
  });
});
