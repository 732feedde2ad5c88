// Smoke checks of an installed Trawl, shared by scripts/package-test.mjs (the packed tarball installed
// with npm) and scripts/bundle-mcpb.mjs (the unpacked .mcpb): an MCP client completes the handshake and
// reads a loopback HTML page and a PDF (which load the native SQLite modules, the page cache and pdfjs),
// and `trawl serve` answers GET /health. Everything runs on 127.0.0.1.
/* global fetch */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The texts the fixture pages carry, which get_contents must return. */
export const FIXTURE = {
  html: 'Package smoke pages are served from memory on the loopback address.',
  pdf: 'A one-page PDF read by the bundled pdfjs.',
};

/** A one-page PDF 1.4 whose text stream holds `line` (xref offsets computed exactly). */
function buildPdf(line) {
  const stream = `BT\n/F1 14 Tf\n72 720 Td\n(${line}) Tj\nET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(out, 'latin1');
  const entries = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A loopback site with /page.html and /paper.pdf (robots.txt: 404, so everything is allowed). */
export async function startFixtureSite() {
  const html = `<!doctype html><html><head><title>Smoke page</title></head><body><main><h1>Smoke page</h1><p>${FIXTURE.html}</p><p>It exists so that an installed Trawl can fetch something without the internet.</p></main></body></html>`;
  const pdf = buildPdf(FIXTURE.pdf);
  const server = http.createServer((req, res) => {
    if (req.url === '/page.html') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    else if (req.url === '/paper.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The environment a checked process runs with: the SDK's safe defaults, plus `extra`. */
export function childEnv(extra) {
  return { ...getDefaultEnvironment(), ...extra };
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

const textOf = (result) => result.content.map((c) => c.text ?? '').join('\n');

/**
 * Starts `command args` as an MCP server over stdio with the SDK's client: initialize, tools/list, then
 * (when `site` is given) get_contents of its HTML page and PDF and a search. Returns the tool names, the
 * handshake time and the server's stderr. Throws with what went wrong.
 */
export async function checkMcp({ command, args, cwd, env, site }) {
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'trawl-smoke', version: '1.0.0' });
  const started = performance.now();
  try {
    await client.connect(transport);
    const handshakeMs = performance.now() - started;
    const info = client.getServerVersion();
    assert(info?.name === 'trawl', `initialize: server name ${JSON.stringify(info?.name)}, expected "trawl"`);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert(names.includes('search'), `tools/list: no search tool in ${names.join(', ')}`);
    if (site) {
      const pages = await client.callTool({
        name: 'get_contents',
        arguments: { urls: [`${site.base}/page.html`, `${site.base}/paper.pdf`] },
      });
      const text = textOf(pages);
      assert(!pages.isError, `get_contents answered an error: ${text}`);
      for (const phrase of [FIXTURE.html, FIXTURE.pdf]) {
        assert(text.includes(phrase), `get_contents: "${phrase}" missing from:\n${text.slice(0, 2000)}`);
      }
      const found = await client.callTool({ name: 'search', arguments: { query: 'smoke page loopback' } });
      assert(!found.isError, `search answered an error: ${textOf(found)}`);
    }
    return { tools: names, handshakeMs, stderr };
  } catch (err) {
    err.message += stderr ? `\n--- server stderr ---\n${stderr.slice(-4000)}` : '';
    throw err;
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * Starts `command args` as an MCP server over stdio and asks get_code_context `query`; expects the
 * answer to name `expected` (a symbol of code indexed beforehand). Returns the answer's first line.
 */
export async function checkCodeContext({ command, args, cwd, env, query, expected }) {
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'trawl-smoke', version: '1.0.0' });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'get_code_context', arguments: { query } });
    const text = textOf(result);
    assert(!result.isError, `get_code_context answered an error: ${text}`);
    assert(text.includes(expected), `get_code_context: "${expected}" missing from:\n${text.slice(0, 2000)}`);
    return text.split('\n')[0];
  } catch (err) {
    err.message += stderr ? `\n--- server stderr ---\n${stderr.slice(-4000)}` : '';
    throw err;
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * Starts `command args` (a `trawl serve --port 0`), waits for its "listening on URL" log line, and
 * expects GET /health to answer 200. Returns the URL and the status body; stops the server.
 */
export async function checkServe({ command, args, cwd, env, timeoutMs = 60_000 }) {
  // its own process group: npx does not pass SIGTERM on to the server it started, so the group is stopped
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening on" line within ${timeoutMs} ms`)), timeoutMs);
      child.on('exit', (code) => reject(new Error(`trawl serve exited with ${code} before listening`)));
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const match = /listening on (http:\/\/[^\s"]+)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    const res = await fetch(`${url}/health`);
    const body = await res.text();
    assert(res.status === 200, `GET /health answered ${res.status}: ${body}`);
    // the web console travels with the package: its page, and the script that page names
    const page = await fetch(`${url}/console`);
    const html = await page.text();
    assert(page.status === 200, `GET /console answered ${page.status}: ${html.slice(0, 300)}`);
    const script = /<script[^>]* src="([^"]+)"/.exec(html)?.[1];
    assert(script, `the console's page names no script:\n${html.slice(0, 500)}`);
    const asset = await fetch(new URL(script, url));
    assert(asset.status === 200, `GET ${script} answered ${asset.status}`);
    return { url, body: `${body}; /console and ${script} served` };
  } catch (err) {
    err.message += stderr ? `\n--- server stderr ---\n${stderr.slice(-4000)}` : '';
    throw err;
  } finally {
    const running = child.exitCode === null && child.signalCode === null;
    const exited = new Promise((resolve) => (running ? child.once('exit', resolve) : resolve()));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // the group has already gone
    }
    await exited;
  }
}
