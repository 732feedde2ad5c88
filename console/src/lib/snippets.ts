/**
 * The playground's "Copy as": the request just sent, as curl, as an exa-js call and as an MCP
 * `tools/call` (tool names and arguments as src/ops and docs/mcp.md give them). The key never appears:
 * it is `$TRAWL_API_KEY` in the shell and `process.env.TRAWL_API_KEY` in JavaScript.
 */

export type PlaygroundKind = 'search' | 'contents' | 'context' | 'answer';

export interface Snippets {
  curl: string;
  exaJs: string | null;
  mcp: string | null;
  /** Why a form is missing, when one is. */
  notes: string[];
}

const PATHS: Record<PlaygroundKind, string> = {
  search: '/search',
  contents: '/contents',
  context: '/context',
  answer: '/answer',
};

/** The MCP tool of each REST operation (`/answer` is REST only). */
const TOOLS: Record<PlaygroundKind, string | null> = {
  search: 'search',
  contents: 'get_contents',
  context: 'get_code_context',
  answer: null,
};

/** A single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function curlOf(kind: PlaygroundKind, body: Record<string, unknown>, origin: string): string {
  const streaming = body.stream === true;
  return [
    `curl -sS${streaming ? 'N' : ''} ${shellQuote(origin + PATHS[kind])}`,
    `  -H "Authorization: Bearer $TRAWL_API_KEY"`,
    `  -H 'content-type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join(' \\\n');
}

const js = (value: unknown) => JSON.stringify(value, null, 2);
/** Arguments of a call: the first, then the options when there are any. */
const args = (first: unknown, options: Record<string, unknown>) =>
  Object.keys(options).length > 0 ? `${js(first)}, ${js(options)}` : js(first);

function exaCall(kind: PlaygroundKind, body: Record<string, unknown>): string | null {
  const { query, urls, stream, ...options } = body;
  switch (kind) {
    case 'search':
      // exa-js asks for page text when `contents` is left out; `false` keeps the request as sent
      return `const result = await exa.search(${js(query)}, ${js({ ...options, contents: options.contents ?? false })});`;
    case 'contents':
      return `const result = await exa.getContents(${args(urls, options)});`;
    case 'answer':
      return stream
        ? `for await (const chunk of exa.streamAnswer(${args(query, options)})) {\n  process.stdout.write(chunk.content ?? '');\n}`
        : `const result = await exa.answer(${args(query, options)});`;
    case 'context':
      return null;
  }
}

function exaJsOf(kind: PlaygroundKind, body: Record<string, unknown>, origin: string): string | null {
  const call = exaCall(kind, body);
  if (!call) return null;
  return [
    "import { Exa } from 'exa-js';",
    '',
    `const exa = new Exa(process.env.TRAWL_API_KEY, ${js(origin)});`,
    call,
  ].join('\n');
}

function mcpOf(kind: PlaygroundKind, body: Record<string, unknown>): string | null {
  const name = TOOLS[kind];
  if (!name) return null;
  return js({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: body } });
}

/** The three forms of one request body sent to `kind`'s route on `origin`. */
export function snippetsFor(kind: PlaygroundKind, body: Record<string, unknown>, origin: string): Snippets {
  const notes: string[] = [];
  const exaJs = exaJsOf(kind, body, origin);
  const mcp = mcpOf(kind, body);
  if (!exaJs) notes.push('exa-js has no code-context method: call POST /context as the curl line does.');
  if (!mcp) notes.push('/answer is REST only; over MCP, the search tool answers with an outputSchema.');
  return { curl: curlOf(kind, body, origin), exaJs, mcp, notes };
}
