/**
 * Boolean setting flags on the command line (src/config/settings-doc.ts `booleanFlagArgs`): a flag alone
 * or negated, as the CLI declares them; the value-taking spelling written before (`--robots false`,
 * `--robots=false`) read the same; a word that is neither true nor false refused; nothing else touched.
 */
import { describe, expect, it } from 'vitest';
import { booleanFlagArgs } from '../../../src/config/settings-doc.js';
import { SETTING_FLAGS } from '../../../src/config/flags.js';

const BOOLEANS = new Set(['--robots', '--allow-private-network']);
const read = (...argv: string[]) => booleanFlagArgs(['node', 'cli.js', ...argv], BOOLEANS).slice(2);

describe('boolean flags', () => {
  it('stand alone: the next word is the next flag or an argument', () => {
    expect(read('crawl', 'URL', '--allow-private-network', '--data-dir', 'D')).toEqual(['crawl', 'URL', '--allow-private-network', '--data-dir', 'D']); // prettier-ignore
    expect(read('crawl', '--allow-private-network', 'https://example.com')).toEqual(['crawl', '--allow-private-network', 'https://example.com']); // prettier-ignore
    expect(read('serve', '--robots')).toEqual(['serve', '--robots']);
    expect(read('serve', '--no-robots')).toEqual(['serve', '--no-robots']);
  });

  it('read a true or false word after them, or after "=", as the flag or its negation', () => {
    expect(read('serve', '--robots', 'false', '--port', '0')).toEqual(['serve', '--no-robots', '--port', '0']);
    expect(read('serve', '--robots', 'TRUE')).toEqual(['serve', '--robots']);
    expect(read('serve', '--robots=no', '--allow-private-network=1')).toEqual(['serve', '--no-robots', '--allow-private-network']); // prettier-ignore
    expect(read('serve', '--robots', '0')).toEqual(['serve', '--no-robots']);
  });

  it('refuse another word after "=", naming how to write the flag', () => {
    expect(() => read('serve', '--robots=maybe')).toThrow(/Invalid flag --robots=maybe: write --robots alone, --no-robots, or --robots=true\|false/); // prettier-ignore
  });

  it('leave flags that take values, and everything after "--", as they are', () => {
    expect(read('serve', '--port', 'false', '--', '--robots', 'false')).toEqual(['serve', '--port', 'false', '--', '--robots', 'false']); // prettier-ignore
  });

  it('are exactly the boolean settings: each declared without a value', () => {
    const bare = SETTING_FLAGS.filter((s) => !s.flags.includes(' ')).map((s) => s.key);
    expect(bare).toEqual(expect.arrayContaining(['robots', 'allowPrivateNetwork', 'mcpKeyless', 'oauthDcr']));
    expect(bare).not.toContain('port');
  });
});
