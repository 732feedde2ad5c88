/**
 * SQL cut into statements (at `;` outside strings, comments and dollar quotes), `CREATE`d objects named;
 * config files (JSON, YAML, TOML/INI) whole when small, else by top-level key or `[section]`.
 */
import { scanBraces } from './brace-scan.js';
import {
  cleanComment,
  fillGaps,
  gapsOf,
  isBlank,
  MAX_CHUNK_LINES,
  signatureOf,
  type ChunkKind,
  type Unit,
} from './units.js';

const CREATE =
  /^\s*create\s+(?:or\s+replace\s+)?(?:(?:temp|temporary|unique|materialized|virtual|global|local|unlogged|recursive)\s+)*(table|view|function|procedure|index|trigger|type|schema|sequence|extension|domain|policy|macro)\s+(?:if\s+not\s+exists\s+)?((?:[`"[]?[\w$]+[`"\]]?\.)*[`"[]?[\w$]+[`"\]]?)/i;
const SQL_KINDS: Record<string, ChunkKind> = {
  function: 'function',
  procedure: 'function',
  trigger: 'function',
  macro: 'function',
  table: 'class',
  view: 'class',
  type: 'class',
  domain: 'class',
};
// Unnamed statements (inserts, updates, grants) are grouped up to this many lines.
const GROUP_LINES = 60;
const MIN_SECTION_LINES = 3;
// Keys sit at the start of their line: the patterns read this much (and so stay linear).
const MAX_KEY_LINE = 200;
// PostgreSQL's $$ … $$ and $body$ … $body$ quote function bodies.
const DOLLAR_QUOTE = /\$[A-Za-z_]*\$/y;

const moduleGap = gapsOf('module');

/** Line ranges of SQL statements: each from its first code line to the line of its `;`. */
function sqlStatements(lines: string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = -1;
  let close = ''; // what ends the current string, quoted name, comment or dollar quote
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    for (let j = 0; j < line.length; j++) {
      if (close !== '') {
        if (line.startsWith(close, j)) {
          j += close.length - 1;
          close = '';
        }
        continue;
      }
      const ch = line[j]!;
      if (ch === '-' && line[j + 1] === '-') break;
      if (ch !== ' ' && ch !== '\t' && start < 0) start = i;
      DOLLAR_QUOTE.lastIndex = j;
      const dollar = ch === '$' ? DOLLAR_QUOTE.exec(line)?.[0] : undefined;
      if (dollar) {
        close = dollar;
        j += dollar.length - 1;
      } else if (ch === "'" || ch === '"' || ch === '`') close = ch;
      else if (ch === '/' && line[j + 1] === '*') {
        close = '*/';
        j++;
      } else if (ch === ';' && start >= 0) {
        out.push([start, i]);
        start = -1;
      }
    }
  }
  if (start >= 0) out.push([start, lines.length - 1]);
  return out;
}

/** Comment lines (`--`, `#`, `;`, `//`) right above line `i`, down to `floor`. */
function commentsAbove(lines: string[], i: number, floor: number, comment: RegExp): number {
  let start = i;
  while (start - 1 >= floor && !isBlank(lines[start - 1]) && comment.test(lines[start - 1]!)) start--;
  return start;
}

/** The units of an SQL file. */
export function chunkSql(lines: string[]): Unit[] {
  const units: Unit[] = [];
  let floor = 0;
  for (const [first, end] of sqlStatements(lines)) {
    const start = commentsAbove(lines, first, floor, /^\s*--/);
    const doc = start < first ? cleanComment(lines.slice(start, first)) : null;
    const text = lines.slice(first, Math.min(end, first + 3) + 1).join(' ');
    const m = CREATE.exec(text);
    const last = units[units.length - 1];
    floor = end + 1;
    if (!m && last?.symbol === null && end - last.start < GROUP_LINES) {
      last.end = end;
      continue;
    }
    const name = m ? m[2]!.replace(/[`"[\]]/g, '') : null;
    const kind = m ? (SQL_KINDS[m[1]!.toLowerCase()] ?? 'block') : 'block';
    units.push({ start, end, kind, symbol: name, signature: m ? signatureOf(lines, first, first) : null, doc });
  }
  return fillGaps(0, lines.length - 1, units, moduleGap);
}

interface Head {
  line: number;
  name: string;
}

/** The units of a JSON, YAML or TOML/INI file: the whole file when short, else its top-level sections. */
export function chunkConfig(lines: string[], language: string): Unit[] {
  if (lines.length <= MAX_CHUNK_LINES) {
    return [{ start: 0, end: lines.length - 1, kind: 'module', symbol: null, signature: null, doc: null }];
  }
  if (language === 'json') return sections(lines, jsonKeys(lines), /^\s*\/\//, rootClose(lines));
  if (language === 'yaml') return sections(lines, yamlKeys(lines), /^#/, lines.length - 1);
  return sections(lines, tomlHeaders(lines), /^\s*[#;]/, lines.length - 1);
}

function sections(lines: string[], heads: Head[], comment: RegExp, last: number): Unit[] {
  const units: Unit[] = [];
  const starts = heads.map((head, i) => commentsAbove(lines, head.line, i > 0 ? heads[i - 1]!.line + 1 : 0, comment));
  heads.forEach((head, i) => {
    const end = i + 1 < heads.length ? starts[i + 1]! - 1 : last;
    if (end - head.line + 1 < MIN_SECTION_LINES) return;
    const doc = starts[i]! < head.line ? cleanComment(lines.slice(starts[i], head.line)) : null;
    units.push({
      start: starts[i]!,
      end,
      kind: 'section',
      symbol: head.name,
      signature: signatureOf(lines, head.line, head.line),
      doc,
    });
  });
  return fillGaps(0, lines.length - 1, units, moduleGap);
}

function jsonKeys(lines: string[]): Head[] {
  const scan = scanBraces(lines, {});
  const heads: Head[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = scan.depth[i] === 1 && scan.inCode[i] ? /^\s*"([^"]*)"\s*:/.exec(scan.masked[i]!) : null;
    // The key as written (the masked line keeps words only).
    if (m) heads.push({ line: i, name: /^\s*"((?:[^"\\]|\\.)*)"/.exec(lines[i]!)?.[1] ?? m[1]! });
  }
  return heads;
}

/** The line before the root object's closing brace. */
function rootClose(lines: string[]): number {
  let last = lines.length - 1;
  while (last > 0 && (isBlank(lines[last]) || /^\s*[}\]]\s*$/.test(lines[last]!))) last--;
  return last;
}

function yamlKeys(lines: string[]): Head[] {
  const heads: Head[] = [];
  lines.forEach((line, i) => {
    const m = /^("[^"]*"|'[^']*'|[^\s#\-'"][^:#]*?)\s*:(?:\s|$)/.exec(line.slice(0, MAX_KEY_LINE));
    if (m && line !== '---') heads.push({ line: i, name: m[1]!.replace(/^["']|["']$/g, '') });
  });
  return heads;
}

function tomlHeaders(lines: string[]): Head[] {
  const heads: Head[] = [];
  lines.forEach((line, i) => {
    const m = line.length <= MAX_KEY_LINE ? /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:[#;].*)?$/.exec(line) : null;
    if (m) heads.push({ line: i, name: m[1]!.trim() });
  });
  return heads;
}
