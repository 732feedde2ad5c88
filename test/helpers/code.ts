/** Code chunks for tests of the code files repository and the code index: a two-line Python function. */
import type { CodeChunk } from '../../src/store/contracts/code-files.js';

/** The chunk of function `symbol` in `path` of `source`, starting at `startLine`. */
export const codeChunk = (source: string, path: string, symbol: string, startLine = 1): CodeChunk => ({
  source,
  path,
  startLine,
  endLine: startLine + 1,
  language: 'python',
  kind: 'function',
  symbol,
  doc: null,
  code: `def ${symbol}():\n    return 1`,
});
