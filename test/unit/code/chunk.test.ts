import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunkFile, type CodeChunk } from '../../../src/core/code/chunk/chunk.js';

const FIXTURES = new URL('../../fixtures/code-repo/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, FIXTURES), 'utf8');
const chunksOf = (path: string): CodeChunk[] => chunkFile(path, read(path));
/** `start-end kind symbol`, the shape most tests compare. */
const outline = (chunks: CodeChunk[]): string[] =>
  chunks.map((c) => `${c.startLine}-${c.endLine} ${c.kind} ${c.symbol ?? '-'}`);
const find = (chunks: CodeChunk[], symbol: string): CodeChunk => {
  const chunk = chunks.find((c) => c.symbol === symbol);
  if (!chunk) throw new Error(`no chunk ${symbol} in ${outline(chunks).join(', ')}`);
  return chunk;
};

/** Ranges inside the file, in order, never overlapping (except windows), code equal to the lines. */
function expectWellFormed(chunks: CodeChunk[], text: string): void {
  const lines = text.split(/\r\n|\n|\r/);
  let previousEnd = 0;
  for (const c of chunks) {
    expect(c.startLine).toBeGreaterThanOrEqual(1);
    expect(c.endLine).toBeGreaterThanOrEqual(c.startLine);
    expect(c.endLine).toBeLessThanOrEqual(lines.length);
    expect(c.code).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n'));
    if (!(c.kind === 'block' && c.symbol === null)) expect(c.startLine).toBeGreaterThan(previousEnd);
    previousEnd = c.endLine;
  }
}

const FIXTURE_FILES = ['py/http_client.py', 'ts/pool.ts', 'go/server.go', 'rust/lib.rs', 'java/Cache.java', 'docs/guide.md', 'scripts/build.sh', 'ruby/store.rb', 'sql/schema.sql', 'package.json']; // prettier-ignore

describe('chunkFile on the fixture repository', () => {
  it.each(FIXTURE_FILES)('%s: well-formed chunks with the file language', (path) => {
    const chunks = chunksOf(path);
    expect(chunks.length).toBeGreaterThan(0);
    expectWellFormed(chunks, read(path));
    for (const c of chunks) expect(c.path).toBe(path);
  });
});

describe('Python', () => {
  const chunks = chunksOf('py/http_client.py');

  it('cuts functions, classes and methods at exact lines, methods qualified by their class', () => {
    expect(outline(chunks)).toEqual([
      '1-10 module -',
      '13-18 function backoff_delay',
      '21-24 function encode_query',
      '27-32 class Response',
      '34-35 method Response.ok',
      '38-46 class HttpClient',
      '48-50 method HttpClient.__init__',
      '52-55 method HttpClient.headers',
      '57-71 method HttpClient.request',
      '73-80 method HttpClient.parse_json_body',
      '82-83 class HttpClient.RetryPolicy',
      '85-86 method HttpClient.RetryPolicy.should_retry',
      '88-92 method HttpClient.fetch_all',
      '95-96 module -',
    ]);
  });

  it('reads docstrings, the module docstring and comments right above', () => {
    expect(find(chunks, 'backoff_delay').doc).toBe(
      'Seconds to wait before retry number `attempt`.\n\nThe delay doubles each time and never exceeds `cap`.',
    );
    expect(chunks[0]!.doc).toMatch(/^A small HTTP client with retries, .*\n\nNothing here talks/);
    expect(find(chunks, 'encode_query').doc).toBe(
      'Builds the query string; keys are sorted so that cache keys are stable.',
    );
    expect(find(chunks, 'HttpClient').doc).toContain('Example:\n    client = HttpClient(transport)');
  });

  it('keeps decorators, the class docstring and class attributes with their declarations', () => {
    expect(find(chunks, 'Response').code).toMatch(/^@dataclass\nclass Response:\n {4}"""What a transport returns."""/);
    expect(find(chunks, 'HttpClient.headers').code.split('\n')[0]).toBe('    @property');
    expect(find(chunks, 'HttpClient.parse_json_body').code).toContain('@staticmethod');
    expect(find(chunks, 'HttpClient').code).toContain('max_attempts = 3');
  });

  it('gives multi-line signatures whole and skips code inside strings', () => {
    expect(find(chunks, 'HttpClient.request').signature).toBe('def request(\n    self,\n    method,\n    url,\n    params=None,\n)'); // prettier-ignore
    expect(find(chunks, 'HttpClient.fetch_all').signature).toBe('async def fetch_all(self, urls)');
    expect(chunks.some((c) => c.symbol?.includes('not_a_function'))).toBe(false);
  });
});

describe('TypeScript', () => {
  const chunks = chunksOf('ts/pool.ts');

  it('cuts declarations, class members and object-literal methods', () => {
    expect(outline(chunks)).toEqual([
      '1-4 module -',
      '6-10 class Connection',
      '12-16 class PoolEvent',
      '18-22 module -',
      '24-29 function traced',
      '31-38 function fillTemplate',
      '40-40 function isIdle',
      '42-45 class Pool',
      '47-50 method Pool.constructor',
      '52-63 method Pool.acquire',
      '65-69 method Pool.release',
      '71-73 method Pool.stats',
      '75-77 method Pool.describe',
      '81-83 method poolEvents.label',
      '84-86 method poolEvents.isRelease',
    ]);
  });

  it('keeps JSDoc and decorators with the member, and strips markers from the doc', () => {
    const acquire = find(chunks, 'Pool.acquire');
    expect(
      acquire.code
        .split('\n')
        .slice(0, 3)
        .map((l) => l.trim()),
    ).toEqual([
      '/** Takes a free connection, or null when all are busy. */',
      '@traced',
      'acquire(): Connection | null {',
    ]);
    expect(acquire.doc).toBe('Takes a free connection, or null when all are busy.');
    expect(find(chunks, 'fillTemplate').doc).toBe('Fills `{name}` placeholders of a template.\n@param template the text with placeholders'); // prettier-ignore
    expect(chunks[0]!.doc).toBe('A connection pool, written as a chunking fixture: nothing here opens a socket.');
  });

  it('signatures stop before the body, even after a brace-typed return', () => {
    expect(find(chunks, 'fillTemplate').signature).toBe('export function fillTemplate(template: string, values: Record<string, string>): string'); // prettier-ignore
    expect(find(chunks, 'Pool.stats').signature).toBe('get stats(): { size: number; busy: number }');
    expect(find(chunks, 'isIdle').signature).toBe('export const isIdle = (c: Connection): boolean => !c.busy');
    expect(find(chunks, 'Pool.release').signature).toBe('release = (connection: Connection): void =>');
  });

  it('is not thrown off by braces in regex literals, strings and template literals', () => {
    // fillTemplate holds `${closing}{${key}}` and a regex with `\{`; describe holds `{busy: …}`.
    expect(find(chunks, 'fillTemplate').code).toMatch(/\}\n$|\}$/);
    expect(find(chunks, 'Pool.describe').endLine).toBe(77);
  });

  it('names test blocks by their title, and CommonJS and prototype functions by their path', () => {
    const text = "describe('pool', () => {\n  it('acquires', () => {\n    run();\n  });\n});\n\nPool.prototype.drain = function () {\n  return 0;\n};\n\nexports.create = (n) => {\n  return n;\n};"; // prettier-ignore
    expect(outline(chunkFile('pool.test.js', text))).toEqual(['1-5 block pool', '7-9 method Pool.drain', '11-13 function create']); // prettier-ignore
  });

  it('reads apostrophes in JSX text as text', () => {
    const text = "export function App({ items }: { items: string[] }) {\n  return (\n    <ul>\n      {items.map((i) => <li key={i}>Don't {i}</li>)}\n      <p>It's {items.length ? 'many' : \"none\"}</p>\n    </ul>\n  );\n}\n\nexport const Page = () => {\n  return <App items={['a']} />;\n};"; // prettier-ignore
    expect(outline(chunkFile('app.tsx', text))).toEqual(['1-8 function App', '10-12 function Page']);
  });

  it('gathers imports and constants into module chunks', () => {
    const constants = chunks[3]!;
    expect(constants.code).toContain('const PLACEHOLDER = /\\{(\\w+)\\}/g;');
    expect(constants.code).toContain('export const DEFAULT_SIZE = 4;');
  });
});

describe('Go, Rust and Java', () => {
  it('Go: functions, receiver methods as Recv.Name, types, `//` docs', () => {
    const chunks = chunksOf('go/server.go');
    expect(outline(chunks)).toEqual([
      '1-10 module -',
      '12-16 class Server',
      '18-21 class Handler',
      '23-26 function NewServer',
      '28-31 method Server.Handle',
      '33-46 method Server.ServeHTTP',
      '48-51 method Server.String',
    ]);
    expect(find(chunks, 'Server.ServeHTTP').doc).toBe('ServeHTTP picks the longest matching prefix.');
    expect(find(chunks, 'Server.Handle').signature).toBe('func (s *Server) Handle(prefix string, fn http.HandlerFunc)');
    expect(chunks[0]!.doc).toBe('Package server is a chunking fixture: a tiny HTTP handler set.');
  });

  it('Rust: impl blocks qualify their functions, attributes and `///` docs join, lifetimes and raw strings pass', () => {
    const chunks = chunksOf('rust/lib.rs');
    expect(outline(chunks)).toEqual([
      '1-3 module -',
      '5-13 class Bucket',
      '16-19 method Bucket.new',
      '21-28 method Bucket.try_take',
      '30-34 method Bucket.label',
      '37-38 class Limiter',
      '40-43 method Limiter.max_wait',
      '47-49 method Bucket.allow',
      '52-56 function bucket',
      '58-60 module tests',
      '62-67 function tests.takes_until_empty',
    ]);
    const bucket = find(chunks, 'Bucket');
    expect(bucket.doc).toBe('A bucket that refills at a fixed rate.\n\nTokens are whole numbers.');
    expect(bucket.code).toContain('#[derive(Debug, Clone)]');
    expect(find(chunks, 'tests.takes_until_empty').code.trimStart()).toMatch(/^#\[test\]/);
    expect(chunks[0]!.doc).toBe('A token bucket rate limiter, written as a chunking fixture.');
  });

  it('Java: Javadoc, annotations, constructors and nested classes', () => {
    const chunks = chunksOf('java/Cache.java');
    expect(outline(chunks)).toEqual([
      '1-4 module -',
      '6-14 class Cache',
      '16-19 method Cache.Cache',
      '21-24 method Cache.get',
      '26-34 method Cache.put',
      '36-40 method Cache.toString',
      '42-44 class Cache.Stats',
      '46-48 method Cache.Stats.hit',
    ]);
    expect(find(chunks, 'Cache').doc).toBe('A least-recently-used cache with a fixed capacity.\n\n@param <K> key type\n@param <V> value type'); // prettier-ignore
    expect(find(chunks, 'Cache.put').code.trimStart()).toMatch(/^@Deprecated\n\s+@SuppressWarnings\("unchecked"\)\n/);
    expect(find(chunks, 'Cache.toString').code.trimStart()).toMatch(/^@Override/);
  });
});

describe('Markdown, scripts, SQL and config', () => {
  it('Markdown: sections by heading, fenced examples with their language and the prose before them', () => {
    const chunks = chunksOf('docs/guide.md');
    expect(chunks.map((c) => `${c.startLine}-${c.endLine} ${c.kind} ${c.language} ${c.symbol}`)).toEqual([
      '1-3 section markdown Pool guide',
      '5-7 section markdown Installation',
      '9-11 example shell Installation',
      '13-15 section markdown Usage',
      '17-20 example typescript Usage',
      '22-22 section markdown Usage',
      '24-26 example text Usage',
      '28-30 section markdown Python client',
      '32-35 example python Python client',
      '37-40 section markdown Advanced topics',
    ]);
    expect(chunks[2]!.doc).toBe('Install it with npm:');
    expect(chunks[4]!.doc).toBe('Create a pool and take a connection:');
    expect(chunks[4]!.code).toBe('```ts\nconst pool = new Pool(2);\nconst c = pool.acquire();\n```');
    expect(chunks[1]!.signature).toBe('## Installation');
  });

  it('shell: functions (a heredoc with `}` inside included), one-liners, the header comment', () => {
    const chunks = chunksOf('scripts/build.sh');
    expect(outline(chunks)).toEqual([
      '1-5 module -',
      '7-13 function usage',
      '15-17 function clean',
      '19-19 function build',
      '21-24 module -',
    ]);
    expect(chunks[0]!.doc).toBe('Builds the fixture project.');
    expect(find(chunks, 'usage').doc).toBe('Prints a usage message.');
  });

  it('Ruby: def/class/module … end, `self.` and `class << self` methods on the class', () => {
    const chunks = chunksOf('ruby/store.rb');
    expect(outline(chunks)).toEqual([
      '1-3 module -',
      '6-8 class Store',
      '10-13 method Store.initialize',
      '15-18 method Store.fetch',
      '20-24 method Store.save',
      '26-26 method Store.open',
      '29-31 method Store.memory',
    ]);
    expect(find(chunks, 'Store.fetch').doc).toBe('Reads the value of +key+, or +default+.');
  });

  it('SQL: statements split at `;` outside strings and dollar quotes, CREATEd objects named', () => {
    const chunks = chunksOf('sql/schema.sql');
    expect(outline(chunks)).toEqual([
      '1-6 class pages',
      '8-8 block pages_title',
      '10-11 block -',
      '13-18 function count_titles',
    ]);
    expect(chunks[0]!.doc).toBe('The pages table: one row per fetched URL.');
  });

  it('config: a small file whole, a large one by top-level key or section', () => {
    expect(outline(chunksOf('package.json'))).toEqual(['1-8 module -']);
    const yaml = ['# Settings', 'server:', ...Array.from({ length: 80 }, (_, i) => `  key${i}: ${i}`), 'name: x', '# The workers', 'workers:', ...Array.from({ length: 80 }, (_, i) => `  - w${i}`)].join('\n'); // prettier-ignore
    expect(outline(chunkFile('config.yml', yaml))).toEqual(['1-82 section server', '83-83 module -', '84-165 section workers']); // prettier-ignore
    expect(chunkFile('config.yml', yaml)[2]!.doc).toBe('The workers');
    const toml = ['title = "x"', '', '[server]', ...Array.from({ length: 100 }, (_, i) => `k${i} = ${i}`), '', '[[workers]]', ...Array.from({ length: 60 }, (_, i) => `w${i} = ${i}`)].join('\n'); // prettier-ignore
    expect(outline(chunkFile('Cargo.toml', toml))).toEqual(['1-1 module -', '3-103 section server', '105-165 section workers']); // prettier-ignore
    const json = JSON.stringify({ name: 'x', scripts: Object.fromEntries(Array.from({ length: 160 }, (_, i) => [`s${i}`, 'run'])) }, null, 2); // prettier-ignore
    // Longer than 150 lines: cut into parts, each still named.
    expect(outline(chunkFile('package.json', json))).toEqual(['1-2 module -', '3-62 section scripts', '63-163 section scripts']); // prettier-ignore
  });
});

describe('other brace languages', () => {
  it.each([
    ['a.kt', 'class Board(val size: Int) {\n    init {\n        require(size > 0)\n    }\n\n    fun best(): Int = 1\n\n    companion object {\n        fun create(): Board {\n            return Board(3)\n        }\n    }\n}\n\nfun String.shout(): String {\n    return this\n}', ['Board', 'Board.init', 'Board.best', 'Board.create', 'String.shout']], // prettier-ignore
    ['b.cs', 'namespace Demo\n{\n    public class Store\n    {\n        [Obsolete("no")]\n        public string Fetch(string key)\n        {\n            return $"{key}}}";\n        }\n\n        public int Double() => 2;\n    }\n}', ['Store', 'Store.Fetch', 'Store.Double']], // prettier-ignore
    ['c.cpp', '#define OPEN {\nnamespace geo {\ntemplate <typename T>\nclass Vec {\n public:\n  T dot(const Vec& o) const {\n    return 0;\n  }\n};\n\nint Vec<int>::magic() {\n  const char* s = R"({ raw )";\n  return 42;\n}\n}  // namespace geo', ['Vec', 'Vec.dot', 'Vec.magic']], // prettier-ignore
    ['d.c', 'static int\ncount(const char *s)\n{\n  return 0;\n}\n\nstatic const char *names[] = {\n  "a",\n  "b",\n};\n\nstruct node *make(int v) {\n  return 0;\n}', ['count', 'names', 'make']], // prettier-ignore
    ['e.swift', 'struct Stack {\n    var items: [Int] = []\n\n    mutating func push(_ x: Int) {\n        items.append(x)\n    }\n}\n\nextension Stack {\n    var top: Int? {\n        return items.last\n    }\n}', ['Stack', 'Stack.push', 'Stack.top']], // prettier-ignore
    ['f.php', '<?php\nclass Users\n{\n    # a { in a comment\n    public function show(int $id): string\n    {\n        return "user {$id}";\n    }\n}\n\nfunction helper($x) {\n    return $x;\n}', ['Users', 'Users.show', 'helper']], // prettier-ignore
    ['g.scala', 'object Shapes {\n  def largest(xs: Seq[Int]): Int = xs.max\n\n  def scale(k: Double): Double = {\n    k * 2\n  }\n}', ['Shapes', 'Shapes.largest', 'Shapes.scale']], // prettier-ignore
  ])('%s', (path, text, symbols) => {
    const chunks = chunkFile(path, text);
    expectWellFormed(chunks, text);
    expect(chunks.map((c) => c.symbol).filter((s) => s !== null)).toEqual(symbols);
  });

  it('takes a C return type written on the line above', () => {
    const count = chunkFile('d.c', 'static int\ncount(const char *s)\n{\n  return 0;\n}')[0]!;
    expect([count.startLine, count.endLine, count.symbol]).toEqual([1, 5, 'count']);
  });
});
