/**
 * Source files cut into code chunks by their structure (functions, methods, classes, Markdown sections
 * and examples, config sections), for the code index and the formatter of `POST /context`. Heuristic
 * chunkers per language family, overlapping windows when none applies; see README.md.
 */
import { chunkBraces } from './chunk-braces.js';
import { chunkConfig, chunkSql } from './chunk-data.js';
import { chunkMarkdown } from './chunk-markdown.js';
import { chunkPython } from './chunk-python.js';
import { chunkRuby, chunkShell } from './chunk-script.js';
import { type ChunkFamily, detectLanguage, languageFamily, normalizeLanguage } from './languages.js';
import { type ChunkKind, cleanComment, isBlank, isTrivial, splitLong, trimBlankEdges, type Unit } from './units.js';
import { windowUnits } from './windows.js';

/** One chunk of a source file. */
export interface CodeChunk {
  /** The path as given. */
  path: string;
  /** Language id (languages.ts); a Markdown example has its fence's language. */
  language: string;
  /** 1-based, inclusive. */
  startLine: number;
  /** Inclusive. */
  endLine: number;
  kind: ChunkKind;
  /** "parseJsonBody", "Pool.request" (qualified by the enclosing class when known), a heading. */
  symbol: string | null;
  /** The declaration line(s), trimmed, without the body's opening brace. */
  signature: string | null;
  /** The doc comment or docstring, comment markers removed. */
  doc: string | null;
  /** The chunk's source text, with its doc comment when that sits right above. */
  code: string;
}

export type { ChunkKind } from './units.js';

// Text with NUL bytes or many control characters is binary; average lines this long are minified.
const BINARY_SAMPLE = 8_000;
const MINIFIED_AVERAGE_LINE = 300;
// A file comment at the top documents the module (license headers included: they sit there too).
const FILE_COMMENT = /^\s*(?:\/\/|\/\*|\*|#(?!!|include|define|if|pragma|import|\[)|--)/;
// Interpreter settings, not documentation: `# frozen_string_literal: true`, `# -*- coding: utf-8 -*-`.
const MAGIC_COMMENT =
  /^\s*(?:#|\/\/)\s*(?:-\*-.*-\*-|frozen_string_literal:|(?:en)?coding[:=]|eslint|@ts-|prettier-ignore|vim?:)/;

/**
 * Cuts a file into chunks. `language` (an id or an alias such as 'ts') overrides detection from the
 * path and shebang. Never throws: input no chunker can read comes back as overlapping windows.
 */
export function chunkFile(path: string, text: string, language?: string): CodeChunk[] {
  const lang = (language && (normalizeLanguage(language) ?? language.toLowerCase())) || detectLanguage(path, text);
  const lines = splitLines(text);
  try {
    const units = readable(text, lines, languageFamily(lang)) ? structuralUnits(lines, lang) : null;
    return toChunks(path, lang, lines, units ?? windowUnits(lines));
  } catch {
    try {
      return toChunks(path, lang, lines, windowUnits(lines));
    } catch {
      return [];
    }
  }
}

/** The lines of a text (`\n`, `\r\n` or `\r`), without the empty one after a final newline. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Whether the structural chunkers may read the text: not binary, not minified (prose in Markdown may run
 * long). A few giant lines (a data string) are fine: the chunkers bound what their patterns read.
 */
function readable(text: string, lines: string[], family: ChunkFamily): boolean {
  const sample = text.slice(0, BINARY_SAMPLE);
  // eslint-disable-next-line no-control-regex
  const control = sample.match(/[\x00-\x08\x0e-\x1f]/g)?.length ?? 0;
  if (sample.includes('\0') || control > sample.length / 50) return false;
  return family === 'markdown' || text.length / Math.max(1, lines.length) < MINIFIED_AVERAGE_LINE;
}

/** The structural units of a file, or null when its family has none or nothing was recognised. */
function structuralUnits(lines: string[], language: string): Unit[] | null {
  const units = familyUnits(lines, language);
  if (!units || units.every((unit) => unit.gap || unit.drop)) return null;
  return units;
}

function familyUnits(lines: string[], language: string): Unit[] | null {
  switch (languageFamily(language)) {
    case 'python':
      return chunkPython(lines);
    case 'braces':
      return chunkBraces(lines, language);
    case 'ruby':
      return chunkRuby(lines);
    case 'shell':
      return chunkShell(lines);
    case 'sql':
      return chunkSql(lines);
    case 'markdown':
      return chunkMarkdown(lines);
    case 'config':
      return chunkConfig(lines, language);
    default:
      return null;
  }
}

function toChunks(path: string, language: string, lines: string[], units: Unit[]): CodeChunk[] {
  const chunks: CodeChunk[] = [];
  for (const unit of tidy(lines, units)) {
    for (const part of splitLong(lines, unit)) {
      chunks.push({
        path,
        language: part.language ?? language,
        startLine: part.start + 1,
        endLine: part.end + 1,
        kind: part.kind,
        symbol: part.symbol,
        signature: part.signature,
        doc: part.doc,
        code: lines.slice(part.start, part.end + 1).join('\n'),
      });
    }
  }
  return chunks;
}

/**
 * Units ready to print: adjacent gaps of one scope merged, trivial gaps dropped, blank edges trimmed, a
 * file comment at the top made the doc of the module chunk that holds it.
 */
function tidy(lines: string[], units: Unit[]): Unit[] {
  const merged: Unit[] = [];
  for (const unit of units) {
    if (unit.drop) continue;
    const last = merged[merged.length - 1];
    if (
      last?.gap &&
      unit.gap &&
      last.end + 1 === unit.start &&
      last.kind === unit.kind &&
      last.symbol === unit.symbol
    ) {
      merged[merged.length - 1] = { ...last, end: unit.end, doc: last.doc ?? unit.doc };
    } else merged.push(unit);
  }
  const kept = merged
    .filter((unit, i) => !(unit.gap && (isTrivial(lines, unit) || (i > 0 && minorComment(lines, unit)))))
    .map((unit) => trimBlankEdges(lines, unit))
    .filter((unit): unit is Unit => unit !== null);
  const first = kept[0];
  if (first?.gap && first.kind === 'module' && first.doc === null)
    kept[0] = { ...first, doc: fileComment(lines, first) };
  return kept;
}

function fileComment(lines: string[], unit: Unit): string | null {
  let i = unit.start;
  if (lines[i]?.startsWith('#!')) i++;
  const rows: string[] = [];
  let inBlock = false;
  for (; i <= unit.end && (inBlock || FILE_COMMENT.test(lines[i]!)); i++) {
    const line = lines[i]!;
    if (!MAGIC_COMMENT.test(line)) rows.push(line);
    // A `/* … */` block runs to its end whatever its lines start with.
    inBlock = (inBlock || /^\s*\/\*/.test(line)) && !line.includes('*/');
  }
  return rows.length > 0 ? cleanComment(rows) : null;
}

/** A gap of one or two comment lines between declarations: a separator, not content. */
function minorComment(lines: string[], unit: Unit): boolean {
  const rows = lines.slice(unit.start, unit.end + 1).filter((line) => !isBlank(line));
  return rows.length <= 2 && rows.every((line) => FILE_COMMENT.test(line) || /^\s*\*\//.test(line));
}
