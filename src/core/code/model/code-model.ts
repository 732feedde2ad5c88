/**
 * Trawl's own code retrieval model: static term embeddings trained contrastively on docstring → code
 * pairs (scripts/code-model/train.mjs), read from one binary file and run here in TypeScript: a text's
 * terms (the search analyzer's, so identifiers split as the index splits them) are looked up, summed
 * with their weights and normalised. A question and a chunk are close when the chunk answers it.
 * docs/code-context.md#the-model.
 *
 * The file: `TRWLCM1\n`, a uint32 (LE) header length, the header (JSON: dims, vocab size, towers, the
 * training run's summary), the vocabulary (one term per line), then per tower a float32 scale per term
 * and the int8 rows (symmetric quantisation per row), each part 4-byte aligned.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { analyzePacked } from '../../search/analyzer.js';
import { codeWithoutDoc } from './chunk-text.js';

const MAGIC = 'TRWLCM1\n';

/** What the header of a model file says. */
export interface CodeModelHeader {
  format: 'trawl-code-model';
  dims: number;
  vocab: number;
  /** 1: one table for questions and code; 2: a question table, then a code table. */
  towers: 1 | 2;
  /** Terms of a text read, at most (a long chunk's first terms). */
  maxTerms: number;
  /** How the model was made: data, seed, hyperparameters (written by the trainer). */
  training?: Record<string, unknown>;
}

/** A loaded model: embeds questions and code chunks into one space. */
export interface CodeModel {
  /** `trawl-code-` and the first 12 hex digits of the file's SHA-256: stored vectors carry it. */
  readonly version: string;
  readonly dims: number;
  readonly header: CodeModelHeader;
  /** The vocabulary, a row per term. */
  readonly terms: readonly string[];
  /** The question table, then the code table (one table: both), rows × dims, as floats (made on each call). */
  floatTables(): Float32Array[];
  /** The unit vector of a question (all zeros when none of its terms is known). */
  embedQuery(text: string): Float32Array;
  /** The unit vector of code, read by the code table. */
  embedCode(text: string): Float32Array;
  /**
   * The unit vector of an indexed chunk: its symbol's words and doc read as a question would be, plus its
   * symbol and code (without the doc) read as code (on CoSQA dev this sum ranked better than either part).
   */
  embedChunk(chunk: ChunkForModel): Float32Array;
}

/** What the model reads of a chunk. */
export interface ChunkForModel {
  symbol: string | null;
  doc: string | null;
  code: string;
  language: string;
}

/** The distinct terms of a text as the model reads them, in order of first appearance, at most `max`. */
export function modelTerms(text: string, max = 4096): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of analyzePacked(text).terms) {
    if (seen.has(t.term)) continue;
    seen.add(t.term);
    out.push(t.term);
    if (out.length >= max) break;
  }
  return out;
}

/** Reads a model from its bytes (throws with a clear message when they are not a model file). */
export function parseCodeModel(bytes: Buffer): CodeModel {
  if (bytes.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) throw new Error('not a Trawl code model file');
  let at = MAGIC.length;
  const headerLength = bytes.readUInt32LE(at);
  at += 4;
  const header = JSON.parse(bytes.subarray(at, at + headerLength).toString('utf8')) as CodeModelHeader;
  at += headerLength;
  if (header.format !== 'trawl-code-model') throw new Error('not a Trawl code model file');
  const { dims, vocab: size, towers } = header;
  let end = bytes.indexOf(0, at); // the vocabulary ends with a NUL
  const terms = bytes.subarray(at, end).toString('utf8').split('\n');
  if (terms.length !== size) throw new Error(`code model: ${terms.length} terms, header says ${size}`);
  at = align(end + 1);
  const tables: ModelTable[] = [];
  for (let tower = 0; tower < towers; tower++) {
    const scales = new Float32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + size * 4));
    at += size * 4;
    end = at + size * dims;
    // the int8 rows are read in place (scaled as they are summed): no copy, no float table in memory
    tables.push({ rows: new Int8Array(bytes.buffer, bytes.byteOffset + at, size * dims), scales });
    at = align(end);
  }
  const version = `trawl-code-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
  return modelOf(header, terms, tables, version);
}

/** A table of term rows: int8 with a scale per row (a model file), or float (a model adapted to an index). */
export interface ModelTable {
  rows: Int8Array | Float32Array;
  /** Per row; null for float rows. */
  scales: Float32Array | null;
}

/** A model from its tables (a loaded file, or one adapted to an index, float): `tables` are not copied. */
export function modelOf(
  header: CodeModelHeader,
  terms: string[],
  input: (ModelTable | Float32Array)[],
  version: string,
): CodeModel {
  const { dims } = header;
  const tables = input.map((t): ModelTable => (t instanceof Float32Array ? { rows: t, scales: null } : t));
  const vocab = new Map<string, number>();
  terms.forEach((t, i) => vocab.set(t, i));
  const embed = ({ rows, scales }: ModelTable, text: string): Float32Array => {
    const out = new Float32Array(dims);
    for (const term of modelTerms(text, header.maxTerms)) {
      const row = vocab.get(term);
      if (row === undefined) continue;
      const base = row * dims;
      const scale = scales ? scales[row]! : 1;
      for (let d = 0; d < dims; d++) out[d]! += rows[base + d]! * scale;
    }
    return normalize(out);
  };
  const queryTable = tables[0]!;
  const codeTable = tables[tables.length - 1]!;
  return {
    version,
    dims,
    header,
    terms,
    floatTables: () =>
      tables.map(({ rows, scales }) => {
        if (!scales) return rows as Float32Array;
        const out = new Float32Array(rows.length);
        for (let i = 0; i < rows.length; i++) out[i] = rows[i]! * scales[Math.floor(i / dims)]!;
        return out;
      }),
    embedQuery: (text) => embed(queryTable, text),
    embedCode: (text) => embed(codeTable, text),
    embedChunk(chunk) {
      const symbol = chunk.symbol ?? '';
      const asCode = embed(codeTable, `${symbol}\n${codeWithoutDoc(chunk.code, chunk.language)}`);
      if (!chunk.doc && !symbol) return asCode;
      const asWords = embed(queryTable, `${symbol.replace(/[_.$]+/g, ' ')}\n${chunk.doc ?? ''}`);
      for (let d = 0; d < dims; d++) asCode[d]! += asWords[d]!;
      return normalize(asCode);
    },
  };
}

/** Reads a model file. */
export function loadCodeModel(file: string): CodeModel {
  return parseCodeModel(fs.readFileSync(file));
}

const align = (n: number) => (n + 3) & ~3;

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
  }
  return v;
}

/** Writes a model file from float tables (the trainer's last step): each row quantised to int8 with its own scale. */
export function serializeCodeModel(header: CodeModelHeader, terms: string[], tables: Float32Array[]): Buffer {
  const { dims } = header;
  const size = terms.length;
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const parts: Buffer[] = [Buffer.from(MAGIC, 'latin1')];
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length);
  parts.push(length, headerBytes);
  let at = MAGIC.length + 4 + headerBytes.length;
  const vocab = Buffer.concat([Buffer.from(terms.join('\n'), 'utf8'), Buffer.from([0])]);
  parts.push(vocab);
  at += vocab.length;
  const pad = () => {
    const n = align(at) - at;
    if (n > 0) parts.push(Buffer.alloc(n));
    at += n;
  };
  pad();
  for (const table of tables) {
    const scales = new Float32Array(size);
    const rows = new Int8Array(size * dims);
    for (let r = 0; r < size; r++) {
      let max = 0;
      for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(table[r * dims + d]!));
      const scale = max / 127 || 1;
      scales[r] = scale;
      for (let d = 0; d < dims; d++) rows[r * dims + d] = Math.round(table[r * dims + d]! / scale);
    }
    parts.push(Buffer.from(scales.buffer));
    parts.push(Buffer.from(rows.buffer));
    at += scales.byteLength + rows.byteLength;
    pad();
  }
  return Buffer.concat(parts);
}
